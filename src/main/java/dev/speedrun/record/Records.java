package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.eval.AtomicWrite;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Intervals.Interval;
import dev.speedrun.eval.LevelSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Record directories: {@code records/<date>_<NN>_<name>/}.
 *
 * <pre>
 *   README.md         generated summary (time, score, recipe, machine, figures) and an "Idea" section
 *                     for a person (kept when the README is regenerated)
 *   record.json       name, description, date, revision, jdk, machine, per-seed figures, time_seconds
 *                     (slower seed), score (worse seed's lower bootstrap CI), complete, clears_bar
 *   log.txt run.json summary.json metrics.jsonl eval.json policy.safetensors    the seed-42 run
 *   recipe.json       the recipe (from the run's summary; equal to the log header's)
 *   source/           the source at the run's revision: src/main/java/**, pom.xml, plus REVISION and
 *                     SHA256SUMS (sha256sum format)
 *   figures/          training.png (solve rate vs wall clock), losses.png, eval.png
 *   verification/     the second seed's run (the same files but recipe.json and source/)
 * </pre>
 */
public final class Records {
  private Records() {}

  public static final long MAIN_SEED = 42, VERIFY_SEED = 43;
  static final List<String> SEED_FILES = List.of("log.txt", "run.json", "summary.json", "metrics.jsonl", "eval.json");
  static final String CHECKPOINT = "policy.safetensors", VERIFICATION = "verification";

  /**
   * Builds a new record from {@code runPath} in {@code recordsRoot}, or with {@code verifyOf} adds
   * the run as that record's verification seed. Returns the record directory.
   */
  public static Path assemble(Path runPath, Path recordsRoot, Path sourceRoot, String name, String description,
      Path verifyOf) throws IOException {
    RunDir run = RunDir.read(runPath);
    checkRun(run);
    if (verifyOf != null) return addVerification(run, verifyOf);
    String slug = slug(name);
    String date = datePart(run.date());
    Files.createDirectories(recordsRoot);
    int nn = 1;
    try (Stream<Path> s = Files.list(recordsRoot)) {
      for (Path p : s.toList()) {
        String f = p.getFileName().toString();
        if (f.startsWith(date + "_") && f.length() > date.length() + 3) {
          try {
            nn = Math.max(nn, Integer.parseInt(f.substring(date.length() + 1, date.length() + 3)) + 1);
          } catch (NumberFormatException e) {
            // not a record folder
          }
        }
      }
    }
    Path rec = recordsRoot.resolve(String.format(Locale.ROOT, "%s_%02d_%s", date, nn, slug));
    Path tmp = recordsRoot.resolve(".tmp-" + rec.getFileName());
    deleteTree(tmp);
    Files.createDirectories(tmp);
    try {
      copySeed(run, tmp);
      Map<String, String> recipe = run.summaryRecipe();
      ObjectNode rj = RunDir.JSON.createObjectNode();
      run.summary.get("recipe").fields().forEachRemaining(e -> rj.set(e.getKey(), e.getValue()));
      AtomicWrite.write(tmp.resolve("recipe.json"), RunDir.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(rj) + "\n");
      if (recipe.isEmpty()) throw new UserError(runPath + ": empty recipe");
      snapshotSource(sourceRoot, run.revision(), tmp.resolve("source"));
      ObjectNode meta = RunDir.JSON.createObjectNode();
      meta.put("name", slug);
      meta.put("description", description == null || description.isBlank() ? slug : description.strip());
      meta.put("date", date);
      writeSummary(tmp, meta);
      Files.move(tmp, rec, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      deleteTree(tmp);
    }
    return rec;
  }

  private static Path addVerification(RunDir run, Path rec) throws IOException {
    JsonNode meta = RunDir.readJson(rec.resolve("record.json"));
    RunDir main = RunDir.read(rec);
    if (Files.exists(rec.resolve(VERIFICATION))) throw new UserError(rec + " already has a verification run");
    if (run.seed() == main.seed()) throw new UserError("the verification run has the record's seed " + main.seed() + "; it needs another (" + VERIFY_SEED + ")");
    String diff = RunDir.recipeDifference(main.logRecipe, run.logRecipe);
    if (diff != null) throw new UserError(run.dir + " ran another recipe than " + rec + " (" + diff + ")");
    if (!main.revision().equals(run.revision())) {
      throw new UserError(run.dir + " ran revision " + run.revision() + ", the record " + main.revision() + ": a verification must run the same code");
    }
    Path tmp = rec.resolve(".tmp-" + VERIFICATION);
    deleteTree(tmp);
    Files.createDirectories(tmp);
    try {
      copySeed(run, tmp);
      Files.move(tmp, rec.resolve(VERIFICATION), StandardCopyOption.ATOMIC_MOVE);
    } finally {
      deleteTree(tmp);
    }
    writeSummary(rec, (ObjectNode) meta);
    return rec;
  }

  /** Refuses runs that cannot become (part of) a record. */
  static void checkRun(RunDir run) {
    if (run.overridden()) throw new UserError(run.dir + " was configured by command-line overrides of the recipe; such a run cannot become a record");
    if (run.dirty()) throw new UserError(run.dir + " ran uncommitted code (revision " + run.revision() + " dirty); commit and rerun to make a record");
    String diff = RunDir.recipeDifference(run.logRecipe, run.summaryRecipe());
    if (diff != null) throw new UserError(run.dir + ": the recipe in log.txt and summary.json differ (" + diff + ")");
    Path ev = run.dir.resolve("eval.json");
    if (!Files.isRegularFile(ev)) throw new UserError(run.dir + " has no eval.json; score it with ./speedrun eval --checkpoint ... --out " + ev);
    EvalReport e = EvalReport.read(ev).report();
    if (!e.barApplies() || !e.greedy() || e.samples() != 1) {
      throw new UserError(ev + " is not a greedy evaluation on the official " + LevelSet.TEST_SPLIT + " split");
    }
    String ck = LevelSet.sha256(run.finalCheckpoint());
    if (!ck.equals(e.checkpointSha256())) {
      throw new UserError(ev + " scored checkpoint " + e.checkpointSha256() + ", not the run's final checkpoint (" + ck + ")");
    }
  }

  private static void copySeed(RunDir run, Path to) throws IOException {
    for (String f : SEED_FILES) {
      Path src = run.dir.resolve(f);
      if (Files.isRegularFile(src)) Files.copy(src, to.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      else if (!f.equals("metrics.jsonl")) throw new UserError(run.dir + ": missing " + f);
    }
    Files.copy(run.finalCheckpoint(), to.resolve(CHECKPOINT), StandardCopyOption.REPLACE_EXISTING);
  }

  // ---- source snapshot ----

  static void snapshotSource(Path root, String revision, Path out) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    String rev = revision;
    if (revision.equals("unknown") || revision.isBlank()) {
      rev = "unknown (working tree at assembly)";
      Path src = root.resolve("src/main/java");
      if (!Files.isDirectory(src)) throw new UserError("no source tree at " + src + " to snapshot");
      try (Stream<Path> s = Files.walk(src)) {
        for (Path p : s.filter(Files::isRegularFile).toList()) files.put(root.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
      }
      if (Files.isRegularFile(root.resolve("pom.xml"))) files.put("pom.xml", Files.readAllBytes(root.resolve("pom.xml")));
    } else {
      String list = new String(git(root, "ls-tree", "-r", "--name-only", revision, "--", "src/main/java", "pom.xml"), StandardCharsets.UTF_8);
      for (String path : list.split("\n")) if (!path.isBlank()) files.put(path, git(root, "show", revision + ":" + path));
      if (files.isEmpty()) throw new UserError("revision " + revision + " has no src/main/java in " + root);
    }
    StringBuilder sums = new StringBuilder();
    for (Map.Entry<String, byte[]> e : files.entrySet()) {
      Path p = out.resolve(e.getKey());
      Files.createDirectories(p.getParent());
      Files.write(p, e.getValue());
      sums.append(sha256(e.getValue())).append("  ").append(e.getKey()).append('\n');
    }
    Files.writeString(out.resolve("SHA256SUMS"), sums.toString());
    Files.writeString(out.resolve("REVISION"), rev + "\n");
  }

  private static byte[] git(Path root, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", root.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = p.getInputStream().readAllBytes();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new UserError("git " + String.join(" ", args) + " failed in " + root + ": is revision " + "known there?");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return out;
  }

  static String sha256(byte[] b) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  // ---- summary: record.json, README, figures ----

  /** One seed's figures, read from its folder. */
  record Seed(String dir, RunDir run, EvalReport eval, Interval ci) {
    Seed(String dir, RunDir run, EvalReport eval) {
      this(dir, run, eval, eval.bootstrap());
    }
  }

  static List<Seed> seeds(Path rec) {
    List<Seed> out = new ArrayList<>();
    out.add(new Seed(".", RunDir.read(rec), EvalReport.read(rec.resolve("eval.json")).report()));
    Path v = rec.resolve(VERIFICATION);
    if (Files.isDirectory(v)) out.add(new Seed(VERIFICATION, RunDir.read(v), EvalReport.read(v.resolve("eval.json")).report()));
    return out;
  }

  /** "- Segments: ..." for README.md: how many training segments, and on which machines as their logs name them. */
  static String segmentsLine(JsonNode j) {
    List<String> ms = new ArrayList<>();
    j.path("machines").forEach(m -> ms.add(m.asText()));
    int segments = j.path("segments").asInt(), unnamed = j.path("segments_without_machine").asInt();
    String named = ms.isEmpty() ? "no machine named" : (ms.size() == 1 ? "all on " : ms.size() + " machines: ") + String.join(" | ", ms);
    return String.format(Locale.ROOT, "- Segments: %d over the seeds (a start and its resumes), %s%s", segments, named,
        unnamed == 0 ? "" : String.format(Locale.ROOT, "; %d %s none (logged before resumes did)", unnamed,
            unnamed == 1 ? "resume names" : "resumes name"));
  }

  /** (Re)writes record.json, README.md and figures/ of {@code rec} from its seeds; {@code meta} has name, description, date. */
  static void writeSummary(Path rec, ObjectNode meta) throws IOException {
    List<Seed> seeds = seeds(rec);
    RunDir main = seeds.get(0).run();
    ObjectNode j = RunDir.JSON.createObjectNode();
    j.put("name", meta.path("name").asText());
    j.put("description", meta.path("description").asText());
    j.put("date", meta.path("date").asText());
    j.put("revision", main.revision());
    j.put("jdk", main.jdk());
    j.put("machine", main.machine());
    // Every segment's machine: a record whose seeds ran partly elsewhere (another CPU or vector width) says so.
    java.util.Set<String> machines = new java.util.LinkedHashSet<>();
    int segments = 0, unnamed = 0;
    for (Seed s : seeds) {
      for (String m : s.run().segmentMachines) {
        segments++;
        if (m == null) unnamed++;
        else machines.add(m);
      }
    }
    ArrayNode ms = j.putArray("machines");
    machines.forEach(ms::add);
    j.put("segments", segments);
    j.put("segments_without_machine", unnamed);
    ArrayNode arr = j.putArray("seeds");
    double time = 0, score = Double.POSITIVE_INFINITY;
    boolean allClear = true;
    for (Seed s : seeds) {
      ObjectNode o = arr.addObject();
      o.put("seed", s.run().seed());
      o.put("dir", s.dir());
      o.put("train_seconds", s.run().trainSeconds());
      o.put("steps", s.run().steps());
      o.put("pass_at_1", s.eval().passAt1());
      o.putObject("ci95_bootstrap").put("lo", s.ci().lo()).put("hi", s.ci().hi());
      Interval w = s.eval().wilson();
      o.putObject("ci95_wilson").put("lo", w.lo()).put("hi", w.hi());
      o.put("checkpoint_sha256", s.eval().checkpointSha256());
      time = Math.max(time, s.run().trainSeconds());
      score = Math.min(score, s.ci().lo());
      allClear &= s.ci().lo() > EvalReport.BAR;
    }
    boolean complete = seeds.size() == 2;
    j.put("time_seconds", time);
    j.put("score", score);
    j.put("complete", complete);
    j.put("clears_bar", complete && allClear);
    AtomicWrite.write(rec.resolve("record.json"), RunDir.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(j) + "\n");
    Figures.record(rec, seeds);
    String idea = keepIdea(rec.resolve("README.md"));
    AtomicWrite.write(rec.resolve("README.md"), readme(j, seeds, idea));
  }

  static final String IDEA_HEADING = "## Idea";
  static final String IDEA_PLACEHOLDER = "_To be written by a person: what this record changes, why it should work, and what was learned._\n";

  private static String keepIdea(Path readme) throws IOException {
    if (!Files.isRegularFile(readme)) return IDEA_PLACEHOLDER;
    String t = Files.readString(readme);
    int i = t.indexOf("\n" + IDEA_HEADING + "\n");
    return i < 0 ? IDEA_PLACEHOLDER : t.substring(i + IDEA_HEADING.length() + 2);
  }

  private static String readme(ObjectNode j, List<Seed> seeds, String idea) {
    StringBuilder sb = new StringBuilder();
    sb.append("# ").append(j.path("name").asText()).append("\n\n").append(j.path("description").asText()).append("\n\n");
    boolean complete = j.path("complete").asBoolean();
    sb.append(String.format(Locale.ROOT, "- **Time** (slower seed, training clock): %s\n", clock(j.path("time_seconds").asDouble())));
    sb.append(String.format(Locale.ROOT, "- **Score** (worse seed's lower 95%% CI, bootstrap): %.4f\n", j.path("score").asDouble()));
    sb.append("- **Bar** (lower CI > 0.70 on unfiltered/test, seeds 42 and 43): ")
        .append(!complete ? "pending (verification seed missing)" : j.path("clears_bar").asBoolean() ? "cleared" : "NOT cleared").append('\n');
    sb.append("- Date: ").append(j.path("date").asText()).append("; revision `").append(j.path("revision").asText()).append("`\n");
    sb.append("- Machine: ").append(j.path("machine").asText()).append("; JDK: ").append(j.path("jdk").asText()).append('\n');
    sb.append(segmentsLine(j)).append("\n\n");
    sb.append("| seed | folder | training time | steps | pass@1 | 95% CI (bootstrap) | 95% CI (Wilson) |\n");
    sb.append("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (Seed s : seeds) {
      Interval w = s.eval().wilson();
      sb.append(String.format(Locale.ROOT, "| %d | `%s` | %s | %,d | %.4f | [%.4f, %.4f] | [%.4f, %.4f] |\n", s.run().seed(), s.dir(),
          clock(s.run().trainSeconds()), s.run().steps(), s.eval().passAt1(), s.ci().lo(), s.ci().hi(), w.lo(), w.hi()));
    }
    sb.append("\nScored with `./speedrun eval` (greedy, 120 steps, the 1000 levels of unfiltered/test, file sha256 `")
        .append(LevelSet.TEST_FILE_SHA256).append("`); check with `./speedrun record verify <this folder>`.\n\n");
    sb.append("## Figures\n\n![training solve rate vs wall clock](figures/training.png)\n\n![losses](figures/losses.png)\n\n")
        .append("![evaluation](figures/eval.png)\n\n");
    sb.append("## Recipe\n\nSource snapshot in `source/` (revision in `source/REVISION`); values as logged:\n\n| field | value |\n| --- | --- |\n");
    seeds.get(0).run().logRecipe.forEach((k, v) -> sb.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    sb.append('\n').append(IDEA_HEADING).append("\n\n").append(idea.startsWith("\n") ? idea.substring(1) : idea);
    return sb.toString();
  }

  /** m:ss below an hour, else h:mm:ss. */
  public static String clock(double seconds) {
    long t = Math.round(seconds);
    return t >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60)
        : String.format(Locale.ROOT, "%d:%02d", t / 60, t % 60);
  }

  static String slug(String name) {
    String s = (name == null ? "" : name).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
    return s.isEmpty() ? "pinned" : s;
  }

  static String datePart(String date) {
    if (date != null && date.matches("\\d{4}-\\d{2}-\\d{2}.*")) return date.substring(0, 10);
    return LocalDate.now(ZoneOffset.UTC).toString();
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(q);
    }
  }
}
