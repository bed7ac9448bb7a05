package dev.speedrun.cli;

import dev.speedrun.record.Leaderboard;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ./speedrun leaderboard}: regenerates the README table and figures from verified records. */
@Command(name = "leaderboard", mixinStandardHelpOptions = true,
    description = {
      "Regenerate the README's leaderboard (time, description, date, score = worse seed's lower CI, link) from",
      "the records that pass verification, and records/figures/ (records over time; every record's training",
      "solve rate against wall clock, both seeds)."})
public final class LeaderboardCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--records", paramLabel = "DIR", description = "Records folder (default: records/ in the repository).")
  Path records;

  @Option(names = "--readme", paramLabel = "FILE", description = "README to update (default: README.md in the repository).")
  Path readme;

  @Option(names = "--json", description = "Print the rows as JSON.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Path root = RecordCommand.repoRoot();
    // A mistyped --records would otherwise rewrite the README's table as "No record yet".
    if (records != null && !java.nio.file.Files.isDirectory(records)) {
      throw new dev.speedrun.UserError("--records " + records + ": no such folder; the README is left as it was");
    }
    Leaderboard.Result r = Leaderboard.update(records != null ? records : root.resolve("records"),
        readme != null ? readme : root.resolve("README.md"));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      var m = new com.fasterxml.jackson.databind.ObjectMapper();
      var j = m.createObjectNode();
      var rows = j.putArray("rows");
      for (Leaderboard.Row row : r.rows()) {
        rows.addObject().put("record", row.folder()).put("description", row.description()).put("date", row.date())
            .put("time_seconds", row.timeSeconds()).put("score", row.score());
      }
      var ex = j.putArray("excluded");
      r.excluded().forEach(ex::add);
      out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(j));
    } else {
      out.printf(Locale.ROOT, "leaderboard: %d verified record(s)%n", r.rows().size());
      for (String e : r.excluded()) out.println("  left out: " + e);
      out.print(r.table());
    }
    out.flush();
    return 0;
  }
}
