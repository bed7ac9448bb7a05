package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import dev.speedrun.eval.AtomicWrite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code ./speedrun leaderboard}: the README table of verified records (fastest first) between the
 * {@code <!-- leaderboard -->} markers, and two figures in {@code records/figures/}: records over
 * time and every record's training solve rate against wall clock (both seeds).
 */
public final class Leaderboard {
  private Leaderboard() {}

  public static final String START = "<!-- leaderboard -->", END = "<!-- /leaderboard -->";

  /** A verified record's row. */
  public record Row(String folder, String description, String date, double timeSeconds, double score) {}

  /** Rows in the table and records left out (folder: reason). */
  public record Result(List<Row> rows, List<String> excluded, String table) {}

  public static Result update(Path recordsRoot, Path readme) throws IOException {
    List<Row> rows = new ArrayList<>();
    List<String> excluded = new ArrayList<>();
    List<Figures.Entry> entries = new ArrayList<>();
    if (Files.isDirectory(recordsRoot)) {
      List<Path> dirs;
      try (Stream<Path> s = Files.list(recordsRoot)) {
        dirs = s.filter(p -> Files.isRegularFile(p.resolve("record.json"))).sorted().toList();
      }
      for (Path d : dirs) {
        RecordVerifier.Report rep = RecordVerifier.verify(d);
        if (!rep.passed()) {
          String why = rep.checks().stream().filter(c -> !c.ok()).map(RecordVerifier.Check::what).findFirst().orElse("?");
          excluded.add(d.getFileName() + ": fails verification (" + why + ")");
          continue;
        }
        JsonNode j = RunDir.readJson(d.resolve("record.json"));
        rows.add(new Row(d.getFileName().toString(), j.path("description").asText(), j.path("date").asText(),
            j.path("time_seconds").asDouble(), j.path("score").asDouble()));
        List<String> names = new ArrayList<>();
        List<List<JsonNode>> ms = new ArrayList<>();
        for (Records.Seed s : Records.seeds(d)) {
          names.add("seed " + s.run().seed());
          ms.add(s.run().metrics());
        }
        LocalDate date;
        try {
          date = LocalDate.parse(j.path("date").asText());
        } catch (RuntimeException e) {
          throw new UserError(d.resolve("record.json") + ": date '" + j.path("date").asText() + "' is not YYYY-MM-DD");
        }
        entries.add(new Figures.Entry(d.getFileName().toString(), date, j.path("time_seconds").asDouble(), names, ms));
      }
    }
    rows.sort(Comparator.comparingDouble(Row::timeSeconds));
    String table = table(rows, recordsRoot, readme);
    if (!Files.isRegularFile(readme)) throw new UserError("no README at " + readme);
    String text = Files.readString(readme);
    int a = text.indexOf(START), b = text.indexOf(END);
    if (a < 0 || b < a) throw new UserError(readme + " has no " + START + " ... " + END + " block");
    String updated = text.substring(0, a + START.length()) + "\n" + table + text.substring(b);
    if (!updated.equals(text)) AtomicWrite.write(readme, updated);
    if (!entries.isEmpty()) Figures.leaderboard(recordsRoot.resolve("figures"), entries);
    return new Result(rows, excluded, table);
  }

  static String table(List<Row> rows, Path recordsRoot, Path readme) {
    Path base = readme.toAbsolutePath().getParent();
    String rel = base.relativize(recordsRoot.toAbsolutePath()).toString().replace('\\', '/');
    String prefix = rel.isEmpty() ? "" : rel + "/";
    StringBuilder sb = new StringBuilder();
    if (rows.isEmpty()) {
      sb.append("No record yet.\n");
    } else {
      sb.append("| # | Time | Description | Date | Score | Record |\n| --- | --- | --- | --- | --- | --- |\n");
      for (int i = 0; i < rows.size(); i++) {
        Row r = rows.get(i);
        sb.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %.4f | [%s](%s%s) |\n", i + 1, Records.clock(r.timeSeconds()),
            r.description().replace("|", "\\|").replace("\n", " "), r.date(), r.score(), r.folder(), prefix, r.folder()));
      }
    }
    sb.append("\nTime: training clock of the slower seed; score: the worse seed's lower 95% bootstrap CI of greedy pass@1 on ")
        .append("unfiltered/test (seeds 42 and 43, both > 0.70). Regenerate with `./speedrun leaderboard`.\n");
    if (!rows.isEmpty()) {
      sb.append("\n![records over time](").append(prefix).append("figures/records_over_time.png) ")
          .append("![training curves](").append(prefix).append("figures/training_curves.png)\n");
    }
    return sb.toString();
  }
}
