package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.eval.LevelSet;
import dev.speedrun.eval.Scoring;
import dev.speedrun.record.Records;
import dev.speedrun.rl.Dashboard;
import dev.speedrun.rl.Recipe;
import dev.speedrun.rl.TrainingLevels;
import dev.speedrun.rl.TrainingRun;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Generator;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelSources;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The main job, what {@code ./speedrun} with no arguments does: train the pinned recipe
 * ({@link Recipe#PINNED}) with seed 42, score the final checkpoint greedily on unfiltered/test, and
 * print the training time on the speedrun's clock, the score with its interval, and whether it
 * clears the bar (lower bootstrap CI > 0.70). A record needs seeds 42 and 43 ({@code record
 * assemble}).
 *
 * <p>Where no Boxoban levels are found, it trains and scores on levels from the project's own
 * generator (written once into the cache directory) and says plainly that this is not a record.
 */
final class MainJob {
  private MainJob() {}

  /**
   * Splits and sizes of the generated stand-in for Boxoban (files of 1000 levels, as Boxoban's).
   * Training and validation keep the names the pinned recipe reads; the scored split has its own
   * name, since {@code unfiltered/test} must be the official file to be scored at all.
   */
  static final String GENERATED_TEST = "generated/test";
  static final Map<String, Integer> GENERATED_FILES = Map.of("unfiltered/train", 5, "unfiltered/valid", 1, GENERATED_TEST, 1);

  static int run(long seed, String levelsFlag, Path out, int threads, PrintStream o) throws IOException {
    if (threads < 1) throw new UserError("--threads must be at least 1, got " + threads);
    String levels = levelsFlag;
    boolean generated = false;
    if (levels == null && !hasLevels()) {
      Path gen = generatedLevels(LevelSources.cacheDir().resolve("generated-boxoban"), GENERATED_FILES, 1000, o);
      levels = gen.toString();
      generated = true;
      o.println("NOTE: no Boxoban levels found (see ./speedrun levels). Training and scoring on levels from");
      o.println("      the project's own generator in " + gen + ". Such a score is NOT a record.");
    }
    Recipe recipe = Recipe.PINNED;
    Path run = out != null ? out
        : Path.of("runs", "main-seed" + seed + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    TrainingLevels.Loaded lvl = TrainingLevels.load(recipe, seed, levels);
    o.printf("main job: pinned recipe, seed %d, %d threads, %d steps, run directory %s%n", seed, threads,
        recipe.iterations() * recipe.stepsPerIteration(), run);
    o.printf("levels: %s%n", lvl.source());
    TrainingRun.Setup setup = new TrainingRun.Setup(recipe, Map.of(), seed, threads, lvl.train(), lvl.validation(),
        lvl.source(), TrainingRun.ENGINE);
    TrainingRun.Result res = TrainingRun.start(setup, run, Dashboard.forStdout());
    if (res.interrupted()) {
      return 130;
    }
    o.printf("training done: %s on the speedrun clock, %d steps; scoring %s...%n",
        Records.clock(res.trainSeconds()), res.steps(), res.checkpoint());
    EvalReport rep = generated
        ? Scoring.score(res.checkpoint(), res.checkpoint().toString(), LevelSet.load(Path.of(levels), GENERATED_TEST),
            Evaluator.Options.greedy(threads))
        : Scoring.scoreOnTest(res.checkpoint(), levels, threads);
    rep.write(run.resolve("eval.json"));
    o.print(rep.summary());
    o.printf("train time (speedrun clock): %s%n", Records.clock(res.trainSeconds()));
    if (generated || !rep.barApplies()) {
      o.println("result: scored on generated or unofficial levels; NOT a record.");
      return 0;
    }
    boolean clears = rep.clearsBar();
    o.printf("result: lower 95%% bootstrap CI %.4f %s the bar of %.2f (seed %d)%n", rep.bootstrap().lo(),
        clears ? "CLEARS" : "does not clear", EvalReport.BAR, seed);
    if (clears) {
      o.printf("a record needs seed 43 too: ./speedrun --seed 43, then ./speedrun record assemble %s --verify-of ...%n", run);
    }
    return 0;
  }

  private static boolean hasLevels() {
    for (LevelSources.Candidate c : LevelSources.candidates(null)) {
      if (c.exists()) return true;
    }
    return false;
  }

  /** Writes (once) a Boxoban-shaped folder of generated levels into the cache and returns it. */
  static Path generatedLevels(Path root, Map<String, Integer> filesPerSplit, int perFile, PrintStream o) throws IOException {
    long seedBase = 0;
    for (String split : List.of("unfiltered/train", "unfiltered/valid", GENERATED_TEST)) {
      int files = filesPerSplit.get(split);
      Path dir = root.resolve(split);
      Files.createDirectories(dir);
      for (int f = 0; f < files; f++) {
        Path file = dir.resolve(String.format("%03d.txt", f));
        long seed = ++seedBase * 1_000_003L;
        if (Files.isRegularFile(file)) continue;
        o.printf("generating %s ...%n", file);
        Level[] lv = new Level[perFile];
        ThreadLocal<Generator> gen = ThreadLocal.withInitial(() -> new Generator(Generator.Settings.BOXOBAN));
        java.util.stream.IntStream.range(0, perFile).parallel().forEach(k -> lv[k] = gen.get().generate(seed, k));
        String text = Formats.toBoxoban(java.util.Arrays.asList(lv));
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return root;
  }
}
