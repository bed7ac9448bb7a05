package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.eval.Scoring;
import dev.speedrun.eval.Intervals;
import dev.speedrun.eval.Intervals.Interval;
import dev.speedrun.eval.LevelSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code record verify}: re-derives every figure of a record from its raw data and checks the rules.
 * Per seed folder (the record, and {@code verification/}): the evaluation is greedy on the official
 * unfiltered/test, every one of its 1000 levels scored once (the per-level hashes, in order, hash to
 * the pinned content hash; the file hash is the pinned one), pass@1 and both intervals recomputed
 * from the per-level array equal the stored ones, the checkpoint scored is the one kept, the run
 * was not overridden and its recipe (log header) equals the record's recipe.json. Then: the source
 * snapshot matches its SHA256SUMS and its revision is the logged one, the seeds are 42 and 43, both
 * lower CIs exceed 0.70, and record.json's time and score are what the seeds say.
 */
public final class RecordVerifier {
  private RecordVerifier() {}

  public record Check(String what, boolean ok, String detail) {}

  public record Report(Path record, List<Check> checks) {
    public boolean passed() { return checks.stream().allMatch(Check::ok); }

    public String text() {
      StringBuilder sb = new StringBuilder("verify " + record + "\n");
      for (Check c : checks) sb.append(c.ok() ? "  ok    " : "  FAIL  ").append(c.what()).append(c.detail().isEmpty() ? "" : ": " + c.detail()).append('\n');
      long failed = checks.stream().filter(c -> !c.ok()).count();
      sb.append(failed == 0 ? "record verified: all " + checks.size() + " checks passed\n" : failed + " of " + checks.size() + " checks FAILED\n");
      return sb.toString();
    }
  }

  private static final double EPS = 1e-12;

  public static Report verify(Path rec) {
    return verify(rec, null);
  }

  /**
   * Verifies; with {@code testSet} (the official unfiltered/test, loaded by the caller) also re-scores
   * each seed's kept checkpoint, with the thread count its evaluation used, and requires the same
   * result for every level.
   */
  public static Report verify(Path rec, LevelSet testSet) {
    List<Check> cs = new ArrayList<>();
    if (!Files.isDirectory(rec)) throw new UserError(rec + ": no such record folder");
    JsonNode meta;
    try {
      meta = RunDir.readJson(rec.resolve("record.json"));
    } catch (UserError e) {
      cs.add(new Check("record.json", false, e.getMessage()));
      return new Report(rec, cs);
    }
    Map<String, String> recipe = null;
    try {
      recipe = RunDir.recipeMap(RunDir.readJson(rec.resolve("recipe.json")));
      cs.add(new Check("recipe.json readable", true, recipe.size() + " fields"));
    } catch (UserError e) {
      cs.add(new Check("recipe.json readable", false, e.getMessage()));
    }
    List<Long> seeds = new ArrayList<>();
    double worstLo = Double.POSITIVE_INFINITY, slowest = 0;
    String mainRevision = null;
    boolean seedsOk = true;
    for (String sub : List.of(".", Records.VERIFICATION)) {
      Path d = sub.equals(".") ? rec : rec.resolve(sub);
      String tag = sub.equals(".") ? "main" : sub;
      if (!Files.isDirectory(d)) {
        cs.add(new Check(tag + ": present", false, "no " + sub + "/ folder: a record needs a second seed's run"));
        seedsOk = false;
        continue;
      }
      try {
        RunDir run = RunDir.read(d);
        seeds.add(run.seed());
        if (mainRevision == null) mainRevision = run.revision();
        else cs.add(new Check(tag + ": same revision as main", mainRevision.equals(run.revision()), run.revision()));
        cs.add(new Check(tag + ": not overridden", !run.overridden(), run.overridden() ? "the run used command-line overrides" : ""));
        if (recipe != null) {
          String diff = RunDir.recipeDifference(recipe, run.logRecipe);
          cs.add(new Check(tag + ": log recipe equals recipe.json", diff == null, diff == null ? "" : diff));
        }
        String sdiff = RunDir.recipeDifference(run.logRecipe, run.summaryRecipe());
        cs.add(new Check(tag + ": log recipe equals summary.json's", sdiff == null, sdiff == null ? "" : sdiff));
        slowest = Math.max(slowest, run.trainSeconds());
        double lo = checkEval(d, tag, cs);
        if (testSet != null) rescore(d, tag, testSet, cs);
        worstLo = Math.min(worstLo, lo);
      } catch (UserError e) {
        cs.add(new Check(tag + ": readable", false, e.getMessage()));
        seedsOk = false;
      }
    }
    checkSource(rec, mainRevision, cs);
    Set<Long> want = Set.of(Records.MAIN_SEED, Records.VERIFY_SEED);
    cs.add(new Check("seeds are 42 and 43", seedsOk && seeds.size() == 2 && new HashSet<>(seeds).equals(want), "found " + seeds));
    if (seedsOk && seeds.size() == 2) {
      cs.add(new Check(String.format(Locale.ROOT, "bar: worse lower CI > %.2f", EvalReport.BAR), worstLo > EvalReport.BAR,
          String.format(Locale.ROOT, "%.4f", worstLo)));
      double storedScore = meta.path("score").asDouble(Double.NaN), storedTime = meta.path("time_seconds").asDouble(Double.NaN);
      cs.add(new Check("record.json score = worse seed's lower CI", Math.abs(storedScore - worstLo) <= EPS,
          String.format(Locale.ROOT, "stored %s, recomputed %.6f", storedScore, worstLo)));
      cs.add(new Check("record.json time = slower seed's training time", Math.abs(storedTime - slowest) <= 1e-6,
          String.format(Locale.ROOT, "stored %s, logs %.3f", storedTime, slowest)));
    }
    return new Report(rec, cs);
  }

  /** Checks one seed folder's eval.json; returns its recomputed lower bootstrap CI. */
  private static double checkEval(Path d, String tag, List<Check> cs) {
    EvalReport.Stored st = EvalReport.read(d.resolve("eval.json"));
    EvalReport e = st.report();
    cs.add(new Check(tag + ": greedy on " + LevelSet.TEST_SPLIT, e.greedy() && e.samples() == 1 && LevelSet.TEST_SPLIT.equals(e.split()),
        e.split() + ", " + (e.greedy() ? "greedy" : "sampled") + ", " + e.samples() + " sample(s)"));
    boolean fileOk = e.levelFiles().size() == 1 && e.levelFiles().get(0).sha256().equals(LevelSet.TEST_FILE_SHA256)
        && e.levelFiles().get(0).levels() == 1000;
    cs.add(new Check(tag + ": level file is the official test file", fileOk,
        e.levelFiles().isEmpty() ? "none" : e.levelFiles().get(0).path() + " " + e.levelFiles().get(0).sha256()));
    List<String> hashes = e.levels().stream().map(EvalReport.LevelResult::sha256).toList();
    Set<String> distinct = new HashSet<>(hashes);
    boolean every = hashes.size() == 1000 && distinct.size() == 1000 && st.nLevels() == 1000
        && LevelSet.levelsSha256(hashes).equals(LevelSet.TEST_LEVELS_SHA256) && e.levelsSha256().equals(LevelSet.TEST_LEVELS_SHA256);
    cs.add(new Check(tag + ": every test level scored exactly once", every,
        String.format(Locale.ROOT, "%d results, %d distinct levels, n_levels %d", hashes.size(), distinct.size(), st.nLevels())));
    double p = e.passAt1();
    Interval b = e.bootstrap();
    cs.add(new Check(tag + ": pass@1 recomputed", Math.abs(p - st.passAt1()) <= EPS,
        String.format(Locale.ROOT, "stored %s, recomputed %.6f", st.passAt1(), p)));
    cs.add(new Check(tag + ": bootstrap CI recomputed", Math.abs(b.lo() - st.bootstrapLo()) <= EPS && Math.abs(b.hi() - st.bootstrapHi()) <= EPS,
        String.format(Locale.ROOT, "stored [%s, %s], recomputed [%.6f, %.6f]", st.bootstrapLo(), st.bootstrapHi(), b.lo(), b.hi())));
    Interval w = Intervals.wilson(e.solvedTotal(), e.nLevels());
    JsonNode sw = st.json().path("ci95_wilson");
    cs.add(new Check(tag + ": Wilson CI recomputed", Math.abs(w.lo() - sw.path("lo").asDouble(Double.NaN)) <= EPS
        && Math.abs(w.hi() - sw.path("hi").asDouble(Double.NaN)) <= EPS, String.format(Locale.ROOT, "[%.6f, %.6f]", w.lo(), w.hi())));
    Path ck = d.resolve(Records.CHECKPOINT);
    boolean ckOk = Files.isRegularFile(ck) && LevelSet.sha256(ck).equals(e.checkpointSha256());
    cs.add(new Check(tag + ": scored checkpoint is the one kept", ckOk, Files.isRegularFile(ck) ? "" : "no " + Records.CHECKPOINT));
    cs.add(new Check(tag + String.format(Locale.ROOT, ": lower CI > %.2f", EvalReport.BAR), b.lo() > EvalReport.BAR,
        String.format(Locale.ROOT, "pass@1 %.4f, 95%% CI [%.4f, %.4f]", p, b.lo(), b.hi())));
    return b.lo();
  }

  private static void rescore(Path d, String tag, LevelSet testSet, List<Check> cs) {
    EvalReport stored = EvalReport.read(d.resolve("eval.json")).report();
    Path ck = d.resolve(Records.CHECKPOINT);
    int threads = Math.max(1, stored.threads());
    EvalReport again = Scoring.score(ck, Records.CHECKPOINT, testSet, Evaluator.Options.greedy(threads));
    String diff = null;
    if (again.nLevels() != stored.nLevels()) diff = again.nLevels() + " levels vs " + stored.nLevels();
    for (int i = 0; diff == null && i < again.nLevels(); i++) {
      EvalReport.LevelResult a = again.levels().get(i), b = stored.levels().get(i);
      if (!a.sha256().equals(b.sha256()) || a.solved() != b.solved() || a.steps()[0] != b.steps()[0]) {
        diff = String.format(Locale.ROOT, "level %s: re-scored solved=%s steps=%d, stored solved=%s steps=%d", a.address(),
            a.solved() == 1, a.steps()[0], b.solved() == 1, b.steps()[0]);
      }
    }
    cs.add(new Check(tag + ": re-scoring the checkpoint gives the stored results", diff == null,
        diff == null ? String.format(Locale.ROOT, "pass@1 %.4f, %d threads, %.1f s", again.passAt1(), threads, again.seconds()) : diff));
  }

  private static void checkSource(Path rec, String revision, List<Check> cs) {
    Path src = rec.resolve("source");
    try {
      List<String> lines = Files.readAllLines(src.resolve("SHA256SUMS"));
      Map<String, String> listed = new TreeMap<>();
      for (String l : lines) {
        if (l.isBlank()) continue;
        int sp = l.indexOf("  ");
        listed.put(l.substring(sp + 2), l.substring(0, sp));
      }
      Set<String> present = new HashSet<>();
      try (Stream<Path> s = Files.walk(src)) {
        for (Path p : s.filter(Files::isRegularFile).toList()) {
          String rel = src.relativize(p).toString().replace('\\', '/');
          if (!rel.equals("SHA256SUMS") && !rel.equals("REVISION")) present.add(rel);
        }
      }
      String bad = null;
      for (Map.Entry<String, String> e : listed.entrySet()) {
        Path f = src.resolve(e.getKey());
        if (!Files.isRegularFile(f)) bad = "missing " + e.getKey();
        else if (!Records.sha256(Files.readAllBytes(f)).equals(e.getValue())) bad = "changed " + e.getKey();
        if (bad != null) break;
      }
      if (bad == null && !present.equals(listed.keySet())) bad = "files not in SHA256SUMS";
      if (bad == null && !listed.containsKey("src/main/java/dev/speedrun/rl/Recipe.java")) bad = "no rl/Recipe.java in the snapshot";
      cs.add(new Check("source snapshot matches SHA256SUMS", bad == null, bad == null ? listed.size() + " files" : bad));
      String rev = Files.readString(src.resolve("REVISION")).trim();
      boolean revOk = revision != null && (rev.equals(revision) || (revision.equals("unknown") && rev.startsWith("unknown")));
      cs.add(new Check("source snapshot revision is the logged one", revOk, "snapshot " + rev + ", log " + revision));
    } catch (IOException e) {
      cs.add(new Check("source snapshot readable", false, e.getMessage()));
    }
  }
}
