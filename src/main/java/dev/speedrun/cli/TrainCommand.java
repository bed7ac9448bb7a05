package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.rl.Dashboard;
import dev.speedrun.rl.Recipe;
import dev.speedrun.rl.TrainingLevels;
import dev.speedrun.rl.TrainingRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun train}: trains the pinned recipe (or an overridden one) into a run directory. */
@Command(name = "train", mixinStandardHelpOptions = true,
    description = {"Train a policy with recurrent PPO (the pinned recipe unless --set is given) into a run directory:",
        "log.txt, metrics.jsonl, checkpoints/, summary.json. Ctrl-C writes a checkpoint; --resume continues it."})
public final class TrainCommand implements Callable<Integer> {
  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}; records use 42 and 43).")
  long seed;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root (else SOKOBAN_LEVELS, ../shared/data/boxoban, cache).")
  String levels;

  @Option(names = "--out", paramLabel = "DIR", description = "Run directory (default runs/train-seed<S>-<date>).")
  Path out;

  @Option(names = "--threads", description = "Threads (default: all cores).")
  Integer threads;

  @Option(names = "--resume", paramLabel = "RUN_DIR", description = "Continue the run in RUN_DIR from its latest checkpoint.")
  Path resume;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override a recipe field (marks the run as overridden: no record).")
  List<String> sets;

  @Option(names = "--plain", description = "Plain step lines even in a terminal.")
  boolean plain;

  @Override
  public Integer call() throws Exception {
    Map<String, String> overrides = new LinkedHashMap<>();
    long s = seed;
    int th = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    String lv = levels;
    Path run = out;
    if (resume != null) {
      if (sets != null && !sets.isEmpty()) throw new UserError("--resume continues a run with its own recipe; --set is not allowed with it");
      TrainingRun.Stored st = TrainingRun.stored(resume);
      s = st.seed();
      overrides.putAll(st.overrides());
      if (threads == null) th = st.threads();
      if (lv == null && st.levels() != null) lv = levelsRoot(st.levels());
      run = resume;
    } else if (sets != null) {
      for (String kv : sets) {
        int eq = kv.indexOf('=');
        if (eq <= 0) throw new UserError("--set " + kv + ": expected KEY=VALUE");
        overrides.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
      }
    }
    if (th < 1) throw new UserError("--threads must be at least 1");
    Recipe recipe = Recipe.PINNED.with(overrides);
    if (run == null) {
      run = Path.of("runs", "train-seed" + s + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }
    TrainingLevels.Loaded lvl = TrainingLevels.load(recipe, s, lv);
    TrainingRun.Setup setup = new TrainingRun.Setup(recipe, overrides, s, th, lvl.train(), lvl.validation(), lvl.source(),
        TrainingRun.ENGINE);
    Dashboard dash = plain ? new Dashboard(System.out, false) : Dashboard.forStdout();
    System.out.printf("%s %s: %s, seed %d, %d threads, %s%n", resume != null ? "resuming" : "training", run,
        overrides.isEmpty() ? "pinned recipe" : "overridden recipe " + overrides, s, th, lvl.source());
    TrainingRun.Result res = resume != null ? TrainingRun.resume(setup, run, dash) : TrainingRun.start(setup, run, dash);
    if (res.interrupted()) {
      System.out.printf("interrupted: checkpoint %s; continue with ./speedrun train --resume %s%n", res.checkpoint(), run);
      return 130;
    }
    System.out.printf("train clock %.1f s, %d steps, validation solve rate %.4f; summary %s%n", res.trainSeconds(), res.steps(),
        res.valSolveRate(), run.resolve("summary.json"));
    return 0;
  }

  /** The levels root from a stored source description ("ROOT (split: n levels)"). */
  private static String levelsRoot(String source) {
    int p = source.indexOf(" (");
    String root = p > 0 ? source.substring(0, p) : source;
    return Files.isDirectory(Path.of(root)) ? root : null;
  }
}
