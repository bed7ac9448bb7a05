package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a finished training run directory, as written by the trainer ({@code rl.TrainingRun}):
 *
 * <pre>
 *   RUN/run.json        {seed, threads, overridden, overrides {k: v}, levels, recipe {field: value}}
 *   RUN/log.txt         header lines "key: value" (date, revision "COMMIT[ (dirty)]", jdk, machine,
 *                       seed, overridden "no ..."|"yes ..."), then "recipe:" and one "  field = value"
 *                       line per recipe field; then "step:", "val:", "checkpoint:", "done:" lines, and
 *                       for each resumed segment "resume: from ...; machine: M; jdk: J; revision: R"
 *                       (runs before 2026-12-08 name no machine there)
 *   RUN/metrics.jsonl   one JSON object per iteration: iteration, global_step, time/wall_clock_s,
 *                       charts/solve_rate, charts/episodic_return, losses/policy_loss,
 *                       losses/value_loss, losses/entropy, losses/approx_kl, ..., val/solve_rate (some
 *                       rows); a last row {"final": true, "val/solve_rate": ...}
 *   RUN/summary.json    {train_seconds, steps, seed, overridden, overrides, recipe, final_checkpoint
 *                       (relative to RUN), revision {commit, dirty}, jdk, machine, ...}
 *   RUN/eval.json       the test-split evaluation of the final checkpoint ({@code ./speedrun eval --out})
 * </pre>
 *
 * Only what record assembly and verification need is required; a missing or malformed piece is a
 * {@link UserError} naming the file.
 */
public final class RunDir {
  static final ObjectMapper JSON = new ObjectMapper();

  public final Path dir;
  /** Header "key: value" lines of log.txt before "recipe:" (first occurrence wins). */
  public final Map<String, String> header;
  /** The recipe as logged in log.txt's header: field -> value text. */
  public final Map<String, String> logRecipe;
  public final JsonNode run, summary;
  /** The machine of each segment in order, as log.txt names it (the header's, then each resume's; null where unnamed). */
  public final List<String> segmentMachines;

  private RunDir(Path dir, Map<String, String> header, Map<String, String> logRecipe, JsonNode run, JsonNode summary,
      List<String> segmentMachines) {
    this.dir = dir;
    this.header = header;
    this.logRecipe = logRecipe;
    this.run = run;
    this.summary = summary;
    this.segmentMachines = segmentMachines;
  }

  /** Reads a run (or a record's seed folder, which holds the same files). */
  public static RunDir read(Path dir) {
    if (!Files.isDirectory(dir)) throw new UserError(dir + ": no such run directory");
    Path log = dir.resolve("log.txt");
    if (!Files.isRegularFile(log)) throw new UserError(dir + " is not a run directory (no log.txt)");
    JsonNode run = readJson(dir.resolve("run.json"));
    Path sum = dir.resolve("summary.json");
    if (!Files.isRegularFile(sum)) throw new UserError(dir + ": the run has not finished (no summary.json)");
    JsonNode summary = readJson(sum);
    Map<String, String> header = new LinkedHashMap<>();
    Map<String, String> recipe = new LinkedHashMap<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(log);
    } catch (IOException e) {
      throw new UserError("cannot read " + log + ": " + e.getMessage());
    }
    int i = 0;
    for (; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.equals("recipe:")) break;
      int c = l.indexOf(": ");
      if (c > 0 && !l.startsWith("step:")) header.putIfAbsent(l.substring(0, c).trim(), l.substring(c + 2).trim());
    }
    if (i == lines.size()) throw new UserError(log + ": no 'recipe:' block in the header");
    for (i++; i < lines.size() && lines.get(i).startsWith("  "); i++) {
      String l = lines.get(i).trim();
      int eq = l.indexOf(" = ");
      if (eq < 0) throw new UserError(log + " line " + (i + 1) + ": recipe line '" + l + "' is not 'field = value'");
      recipe.put(l.substring(0, eq), l.substring(eq + 3));
    }
    if (recipe.isEmpty()) throw new UserError(log + ": the 'recipe:' block is empty");
    List<String> machines = new ArrayList<>();
    machines.add(header.get("machine"));
    for (; i < lines.size(); i++) {
      if (lines.get(i).startsWith("resume: ")) machines.add(resumeMachine(lines.get(i)));
    }
    return new RunDir(dir, header, recipe, run, summary, machines);
  }

  /** The machine a "resume:" log line names, or null if it names none. */
  static String resumeMachine(String line) {
    int m = line.indexOf("; machine: ");
    if (m < 0) return null;
    int end = line.indexOf("; jdk: ", m);
    return line.substring(m + "; machine: ".length(), end < 0 ? line.length() : end).trim();
  }

  static JsonNode readJson(Path f) {
    if (!Files.isRegularFile(f)) throw new UserError("missing " + f);
    try {
      return JSON.readTree(Files.readString(f));
    } catch (IOException e) {
      throw new UserError("cannot read " + f + ": " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  public long seed() {
    JsonNode s = summary.get("seed");
    if (s == null || !s.canConvertToLong()) throw new UserError(dir.resolve("summary.json") + " has no seed");
    return s.asLong();
  }

  public double trainSeconds() {
    JsonNode s = summary.get("train_seconds");
    if (s == null || !s.isNumber()) throw new UserError(dir.resolve("summary.json") + " has no train_seconds");
    return s.asDouble();
  }

  public long steps() { return summary.path("steps").asLong(0); }

  /** The revision commit as logged (without " (dirty)"). */
  public String revision() {
    String r = header.getOrDefault("revision", summary.path("revision").path("commit").asText("unknown"));
    return r.replace(" (dirty)", "").trim();
  }

  public boolean dirty() {
    return header.getOrDefault("revision", "").endsWith("(dirty)") || summary.path("revision").path("dirty").asBoolean(false);
  }

  public String jdk() { return header.getOrDefault("jdk", summary.path("jdk").asText("unknown")); }
  public String machine() { return header.getOrDefault("machine", summary.path("machine").asText("unknown")); }
  public String date() { return header.getOrDefault("date", "unknown"); }

  /** Whether the run was configured by command-line overrides of the recipe, by any of its records. */
  public boolean overridden() {
    return run.path("overridden").asBoolean(false) || !run.path("overrides").isEmpty()
        || summary.path("overridden").asBoolean(false) || !summary.path("overrides").isEmpty()
        || header.getOrDefault("overridden", "no").startsWith("yes");
  }

  /** The recipe from summary.json: field -> value text (numbers in plain decimal). */
  public Map<String, String> summaryRecipe() {
    JsonNode r = summary.get("recipe");
    if (r == null || !r.isObject()) throw new UserError(dir.resolve("summary.json") + " has no recipe");
    return recipeMap(r);
  }

  static Map<String, String> recipeMap(JsonNode r) {
    Map<String, String> m = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = r.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      m.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString());
    }
    return m;
  }

  /**
   * Whether two recipes are the same: the same fields, and values equal as numbers where both parse
   * as numbers (so "1.0E-8" equals "1e-08"), else as text.
   */
  public static boolean sameRecipe(Map<String, String> a, Map<String, String> b) {
    return recipeDifference(a, b) == null;
  }

  /** The first difference between two recipes, or null when they are the same. */
  public static String recipeDifference(Map<String, String> a, Map<String, String> b) {
    for (String k : a.keySet()) if (!b.containsKey(k)) return "field " + k + " is missing on one side";
    for (String k : b.keySet()) if (!a.containsKey(k)) return "field " + k + " is missing on one side";
    for (String k : a.keySet()) {
      String x = a.get(k), y = b.get(k);
      if (!sameValue(x, y)) return k + " = " + x + " vs " + y;
    }
    return null;
  }

  private static boolean sameValue(String x, String y) {
    if (x.equals(y)) return true;
    try {
      BigDecimal bx = new BigDecimal(x), by = new BigDecimal(y);
      if (bx.compareTo(by) == 0) return true;
      // float fields logged as text vs. stored as double: equal when equal as floats
      return Float.parseFloat(x) == Float.parseFloat(y);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The run's final checkpoint file. */
  public Path finalCheckpoint() {
    String rel = summary.path("final_checkpoint").asText("");
    if (rel.isEmpty()) throw new UserError(dir.resolve("summary.json") + " names no final_checkpoint");
    Path p = dir.resolve(rel).normalize();
    if (!Files.isRegularFile(p)) throw new UserError(dir + ": final checkpoint " + rel + " is missing");
    return p;
  }

  /** Metric rows (metrics.jsonl), skipping none: a malformed line is an error. */
  public List<JsonNode> metrics() {
    return readMetrics(dir.resolve("metrics.jsonl"));
  }

  static List<JsonNode> readMetrics(Path f) {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.isRegularFile(f)) return out;
    List<String> lines;
    try {
      if (f.getFileName().toString().endsWith(".gz")) {
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(
            new java.util.zip.GZIPInputStream(Files.newInputStream(f)), java.nio.charset.StandardCharsets.UTF_8))) {
          lines = in.lines().toList();
        }
      } else {
        lines = Files.readAllLines(f);
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new UserError("cannot read " + f + ": " + e.getMessage());
    }
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) continue;
      try {
        out.add(JSON.readTree(lines.get(i)));
      } catch (IOException e) {
        throw new UserError(f + " line " + (i + 1) + ": not a JSON object");
      }
    }
    return out;
  }

  /** (wall clock s, value) pairs of metric {@code key} over rows that have both. */
  static double[][] series(List<JsonNode> rows, String key) {
    return series(rows, "time/wall_clock_s", key);
  }

  /** (x, value) pairs of metric {@code key} against metric {@code xKey} over rows that have both. */
  static double[][] series(List<JsonNode> rows, String xKey, String key) {
    List<double[]> pts = new ArrayList<>();
    for (JsonNode r : rows) {
      JsonNode t = r.get(xKey), v = r.get(key);
      if (t != null && t.isNumber() && v != null && v.isNumber()) pts.add(new double[] {t.asDouble(), v.asDouble()});
    }
    double[] x = new double[pts.size()], y = new double[pts.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = pts.get(i)[0];
      y[i] = pts.get(i)[1];
    }
    return new double[][] {x, y};
  }
}
