package dev.speedrun.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.eval.Intervals.Interval;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The result of scoring a policy on a split: what was played (split, level files and their hashes,
 * checkpoint identity, policy settings) and the per-level results, from which every figure
 * (pass@1, intervals) is derived — so a verifier can recompute them.
 *
 * <p>JSON (snake_case): {@code split, official_split, policy ("greedy"|"sampled"), samples_per_level,
 * temperature, seed, max_steps, threads, seconds, checkpoint {path, sha256}, level_files [{path,
 * sha256, levels}], levels_sha256, n_levels, solved, pass_at_1, ci95_bootstrap {lo, hi, resamples,
 * seed}, ci95_wilson {lo, hi} (one sample per level only), pass_at_k and ci95_bootstrap_pass_at_k
 * (more than one sample), bar {threshold, cleared} (unfiltered/test only), levels [{address, sha256,
 * solved, steps}]} where a level's {@code solved} is a boolean and {@code steps} an int with one
 * sample, else the count of samples solved and one step count per sample. Steps = actions applied
 * until the episode ended (120 when it timed out).
 */
public record EvalReport(
    String split,
    boolean officialSplit,
    int samples,
    double temperature,
    long seed,
    int threads,
    double seconds,
    String checkpointPath,
    String checkpointSha256,
    List<LevelSet.FileHash> levelFiles,
    String levelsSha256,
    List<LevelResult> levels) {

  public static final int MAX_STEPS = 120;
  /** The non-LLM bar: the lower bootstrap CI must exceed this (DESIGN.md). */
  public static final double BAR = 0.70;

  /** One level's result: samples solved, and steps per sample. */
  public record LevelResult(String address, String sha256, int solved, int[] steps) {}

  public static EvalReport of(LevelSet set, Evaluator.Outcome out, Evaluator.Options o, double seconds,
      String checkpointPath, String checkpointSha256) {
    if (out.levels() != set.size()) throw new IllegalArgumentException("outcome has " + out.levels() + " levels, set " + set.size());
    List<LevelResult> lv = new ArrayList<>(set.size());
    for (int i = 0; i < set.size(); i++) {
      LevelSet.Entry e = set.entries.get(i);
      lv.add(new LevelResult(e.address(), e.sha256(), out.solved()[i], out.steps()[i].clone()));
    }
    return new EvalReport(set.split, set.official, o.samples(), o.temperature(), o.isGreedy() ? 0 : o.seed(), o.threads(),
        seconds, checkpointPath, checkpointSha256, set.files, set.levelsSha256, List.copyOf(lv));
  }

  public boolean greedy() { return temperature == 0; }
  public int nLevels() { return levels.size(); }

  /** Per-level solve fractions (solved / samples), the items of pass@1 and its bootstrap. */
  public double[] perLevel() {
    double[] v = new double[levels.size()];
    for (int i = 0; i < v.length; i++) v[i] = (double) levels.get(i).solved() / samples;
    return v;
  }

  /** Total samples solved. */
  public long solvedTotal() {
    long s = 0;
    for (LevelResult r : levels) s += r.solved();
    return s;
  }

  public double passAt1() { return Intervals.mean(perLevel()); }
  public Interval bootstrap() { return Intervals.bootstrap(perLevel()); }
  /** Wilson interval of pass@1, defined when each level was played once; else null. */
  public Interval wilson() { return samples == 1 ? Intervals.wilson(solvedTotal(), levels.size()) : null; }

  private double[] anySolved() {
    double[] v = new double[levels.size()];
    for (int i = 0; i < v.length; i++) v[i] = levels.get(i).solved() > 0 ? 1 : 0;
    return v;
  }

  public double passAtK() { return Intervals.mean(anySolved()); }

  /** Whether the bar applies: scoring on the official test split. */
  public boolean barApplies() { return officialSplit && LevelSet.TEST_SPLIT.equals(split); }
  public boolean clearsBar() { return bootstrap().lo() > BAR; }

  // ---- JSON ----

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public ObjectNode toJson() {
    ObjectNode j = JSON.createObjectNode();
    j.put("split", split);
    j.put("official_split", officialSplit);
    j.put("policy", greedy() ? "greedy" : "sampled");
    j.put("samples_per_level", samples);
    j.put("temperature", temperature);
    j.put("seed", seed);
    j.put("max_steps", MAX_STEPS);
    j.put("threads", threads);
    j.put("seconds", seconds);
    ObjectNode ck = j.putObject("checkpoint");
    ck.put("path", checkpointPath);
    ck.put("sha256", checkpointSha256);
    ArrayNode files = j.putArray("level_files");
    for (LevelSet.FileHash f : levelFiles) files.addObject().put("path", f.path()).put("sha256", f.sha256()).put("levels", f.levels());
    j.put("levels_sha256", levelsSha256);
    j.put("n_levels", nLevels());
    j.put("solved", solvedTotal());
    j.put("pass_at_1", passAt1());
    Interval b = bootstrap();
    j.putObject("ci95_bootstrap").put("lo", b.lo()).put("hi", b.hi()).put("resamples", Intervals.RESAMPLES).put("seed", Intervals.SEED);
    Interval w = wilson();
    if (w != null) j.putObject("ci95_wilson").put("lo", w.lo()).put("hi", w.hi());
    if (samples > 1) {
      j.put("pass_at_k", passAtK());
      Interval bk = Intervals.bootstrap(anySolved());
      j.putObject("ci95_bootstrap_pass_at_k").put("lo", bk.lo()).put("hi", bk.hi());
    }
    if (barApplies()) j.putObject("bar").put("threshold", BAR).put("cleared", b.lo() > BAR);
    ArrayNode arr = j.putArray("levels");
    for (LevelResult r : levels) {
      ObjectNode o = arr.addObject().put("address", r.address()).put("sha256", r.sha256());
      if (samples == 1) {
        o.put("solved", r.solved() == 1);
        o.put("steps", r.steps()[0]);
      } else {
        o.put("solved", r.solved());
        ArrayNode st = o.putArray("steps");
        for (int s : r.steps()) st.add(s);
      }
    }
    return j;
  }

  public String toJsonString() {
    try {
      return JSON.writeValueAsString(toJson()) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public void write(Path file) throws IOException {
    AtomicWrite.write(file, toJsonString());
  }

  /** The report's stored figures (what a file claims), next to the data they came from. */
  public record Stored(EvalReport report, JsonNode json) {
    public double passAt1() { return json.path("pass_at_1").asDouble(Double.NaN); }
    public double bootstrapLo() { return json.path("ci95_bootstrap").path("lo").asDouble(Double.NaN); }
    public double bootstrapHi() { return json.path("ci95_bootstrap").path("hi").asDouble(Double.NaN); }
    public int nLevels() { return json.path("n_levels").asInt(-1); }
  }

  /** Reads an evaluation JSON written by {@link #write}; a malformed file is a {@link UserError}. */
  public static Stored read(Path file) {
    JsonNode j;
    try {
      j = JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new UserError("cannot read evaluation JSON " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
    }
    try {
      int samples = need(j, "samples_per_level", file).asInt();
      List<LevelSet.FileHash> files = new ArrayList<>();
      for (JsonNode f : need(j, "level_files", file)) {
        files.add(new LevelSet.FileHash(f.path("path").asText(), f.path("sha256").asText(), f.path("levels").asInt()));
      }
      List<LevelResult> lv = new ArrayList<>();
      int i = 0;
      for (JsonNode l : need(j, "levels", file)) {
        JsonNode sv = l.path("solved"), st = l.path("steps");
        int solved;
        int[] steps;
        if (samples == 1) {
          if (!sv.isBoolean() || !st.isInt()) throw new UserError(file + ": levels[" + i + "] needs a boolean 'solved' and an int 'steps'");
          solved = sv.asBoolean() ? 1 : 0;
          steps = new int[] {st.asInt()};
        } else {
          if (!sv.isInt() || !st.isArray() || st.size() != samples) {
            throw new UserError(file + ": levels[" + i + "] needs an int 'solved' and " + samples + " 'steps'");
          }
          solved = sv.asInt();
          steps = new int[samples];
          for (int s = 0; s < samples; s++) steps[s] = st.get(s).asInt();
        }
        if (solved < 0 || solved > samples) throw new UserError(file + ": levels[" + i + "] solved " + solved + " is not in 0.." + samples);
        String sha = l.path("sha256").asText("");
        if (sha.length() != 64) throw new UserError(file + ": levels[" + i + "] has no sha256");
        lv.add(new LevelResult(l.path("address").asText(""), sha, solved, steps));
        i++;
      }
      if (lv.isEmpty()) throw new UserError(file + ": no per-level results");
      EvalReport r = new EvalReport(need(j, "split", file).asText(), j.path("official_split").asBoolean(false), samples,
          j.path("temperature").asDouble(0), j.path("seed").asLong(0), j.path("threads").asInt(0), j.path("seconds").asDouble(0),
          j.path("checkpoint").path("path").asText(""), j.path("checkpoint").path("sha256").asText(""), List.copyOf(files),
          j.path("levels_sha256").asText(""), List.copyOf(lv));
      return new Stored(r, j);
    } catch (UserError e) {
      throw e;
    } catch (RuntimeException e) {
      throw new UserError("evaluation JSON " + file + " is malformed: " + e.getMessage());
    }
  }

  private static JsonNode need(JsonNode j, String field, Path file) {
    JsonNode v = j.get(field);
    if (v == null || v.isNull()) throw new UserError("evaluation JSON " + file + " has no '" + field + "'");
    return v;
  }

  /** The human summary printed by {@code ./speedrun eval}. */
  public String summary() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "split %s%s: %d levels, levels sha256 %s%n", split,
        officialSplit ? " (official)" : " (not an official split)", nLevels(), levelsSha256));
    for (LevelSet.FileHash f : levelFiles) sb.append(String.format(Locale.ROOT, "  file %s sha256 %s (%d levels)%n", f.path(), f.sha256(), f.levels()));
    sb.append(String.format(Locale.ROOT, "checkpoint %s sha256 %s%n", checkpointPath, checkpointSha256));
    sb.append(greedy()
        ? String.format(Locale.ROOT, "policy greedy (argmax), %d max steps, %d threads, %.1f s%n", MAX_STEPS, threads, seconds)
        : String.format(Locale.ROOT, "policy sampled, %d samples per level, temperature %s, seed %d, %d max steps, %d threads, %.1f s%n",
            samples, temperature, seed, MAX_STEPS, threads, seconds));
    sb.append(String.format(Locale.ROOT, "pass@1 %.4f (%d/%d)%n", passAt1(), solvedTotal(), (long) nLevels() * samples));
    Interval b = bootstrap();
    sb.append(String.format(Locale.ROOT, "95%% CI bootstrap [%.4f, %.4f] (percentile, %,d resamples over levels, seed %d)%n",
        b.lo(), b.hi(), Intervals.RESAMPLES, Intervals.SEED));
    Interval w = wilson();
    if (w != null) sb.append(String.format(Locale.ROOT, "95%% CI Wilson    [%.4f, %.4f]%n", w.lo(), w.hi()));
    if (samples > 1) sb.append(String.format(Locale.ROOT, "pass@%d %.4f%n", samples, passAtK()));
    if (barApplies()) {
      boolean clear = b.lo() > BAR;
      sb.append(String.format(Locale.ROOT, "bar: lower CI %.4f %s %.2f: %s%n", b.lo(), clear ? ">" : "<=", BAR,
          clear ? "CLEARED" : "not cleared"));
    }
    return sb.toString();
  }
}
