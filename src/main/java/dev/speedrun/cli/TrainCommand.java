package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.rl.Dashboard;
import dev.speedrun.rl.ImitationWarmStart;
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
  @Option(names = "--seed", description = "Seed (default 42; records use 42 and 43; a resumed or forked run keeps its own).")
  Long seed;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root (else SOKOBAN_LEVELS, ../shared/data/boxoban, cache).")
  String levels;

  @Option(names = "--out", paramLabel = "DIR", description = "Run directory (default runs/train-seed<S>-<date>).")
  Path out;

  @Option(names = "--threads", description = "Threads (default: all cores).")
  Integer threads;

  @Option(names = "--resume", paramLabel = "RUN_DIR", description = "Continue the run in RUN_DIR from its latest checkpoint.")
  Path resume;

  @Option(names = "--allow-vector-change", description = "With --resume or --fork: go on from a checkpoint written with another "
      + "vector width than this machine's (512-bit AVX-512 against 256-bit AVX2); the kernels then sum in other orders, so the run "
      + "is no longer the one its seed determines. Refused without this flag.")
  boolean allowVectorChange;

  @Option(names = "--fork", paramLabel = "RUN_DIR", description = "Branch RUN_DIR (a run or a kept run, only read) into --out "
      + "from its latest checkpoint (or --fork-at) with the --set changes, then continue there. Only fields that leave the "
      + "checkpointed state as it is may change (the loss coefficients, learning rate and schedules, totalSteps, bookkeeping).")
  Path fork;

  @Option(names = "--fork-at", paramLabel = "CHECKPOINT", description = "With --fork: the checkpoint to branch from (it-001437 or 1437; "
      + "one that still holds its trainer state).")
  String forkAt;

  @Option(names = "--recipe", paramLabel = "NAME", description = "Named recipe to start from: pinned (default: the record recipe, conv policy), base (the first pinned "
      + "recipe, gather-embedding policy), conv (the conv candidate of sessions 2-5) or llm-agent (the LLM-track agent, trained "
      + "on generated LLM-track puzzles); any recipe but pinned marks the run overridden.")
  String recipeName;

  @Option(names = "--imitate", paramLabel = "JSONL", description = "Warm start by behaviour cloning of the gold answers of this LLM-track "
      + "dataset (the one whose --boxoban-out is the recipe's trainLevels; its held-out validation rows are skipped), timed on the clock.")
  Path imitate;

  @Option(names = "--imitate-epochs", defaultValue = "5", description = "Epochs of --imitate (default ${DEFAULT-VALUE}).")
  int imitateEpochs;

  @Option(names = "--imitate-lr", defaultValue = "0.003", description = "Peak learning rate of --imitate, cosine to 0 (default ${DEFAULT-VALUE}).")
  float imitateLr;

  @Option(names = "--imitate-batch", defaultValue = "128", description = "Puzzles per minibatch of --imitate (default ${DEFAULT-VALUE}).")
  int imitateBatch;

  @Option(names = "--dagger", paramLabel = "ROUNDS,PUZZLES,STEPS,EPOCHS", split = ",", description = "After --imitate: DAgger rounds; "
      + "each plays PUZZLES training puzzles for up to STEPS sampled steps, labels every position with a shortest solution's first move, "
      + "and trains EPOCHS epochs on them plus as many gold answers (e.g. 3,10000,30,1).")
  List<Integer> dagger;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override a recipe field (marks the run as overridden: no record).")
  List<String> sets;

  @Option(names = "--plain", description = "Plain step lines even in a terminal.")
  boolean plain;

  @Override
  public Integer call() throws Exception {
    Map<String, String> overrides = new LinkedHashMap<>();
    if (seed != null && (resume != null || fork != null)) {
      throw new UserError("--resume and --fork continue a run with its own seed; --seed is not allowed with them");
    }
    long s = seed != null ? seed : 42;
    int th = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    String lv = levels;
    Path run = out;
    Recipe recipe = null;
    if (forkAt != null && fork == null) throw new UserError("--fork-at needs --fork");
    if (allowVectorChange && resume == null && fork == null) throw new UserError("--allow-vector-change needs --resume or --fork");
    if (fork != null) {
      if (resume != null || recipeName != null || imitate != null) {
        throw new UserError("--fork continues another run's checkpoint; --resume, --recipe and --imitate are not allowed with it");
      }
      if (out == null) throw new UserError("--fork needs --out, the new run directory");
      Map<String, String> changes = Recipe.parseSets(sets);
      dev.speedrun.rl.Fork.create(fork, forkAt, changes, out);
      System.out.printf("forked %s into %s with %s%n", fork, out, changes);
      resume = out;
      sets = null;
    }
    if (resume != null) {
      if (recipeName != null) throw new UserError("--resume continues a run with its own recipe; --recipe is not allowed with it");
      if (sets != null && !sets.isEmpty()) throw new UserError("--resume continues a run with its own recipe; --set is not allowed with it");
      TrainingRun.Stored st = TrainingRun.stored(resume);
      s = st.seed();
      overrides.putAll(st.overrides());
      // The stored recipe in full, so a run resumes as it started even after the pinned recipe changed.
      if (st.recipe() != null) {
        try {
          recipe = Recipe.fromStored(st.recipe());
        } catch (UserError e) {
          throw new UserError("cannot resume " + resume + ": the recipe in its run.json is not valid here (" + e.getMessage() + ")");
        }
      }
      if (threads == null) th = st.threads();
      if (lv == null && st.levels() != null) lv = levelsRoot(st.levels());
      run = resume;
    } else {
      // A named recipe is stored as its differences from the pinned one, so --resume rebuilds it.
      if (recipeName != null) overrides.putAll(Recipe.named(recipeName).differencesFrom(Recipe.PINNED));
      overrides.putAll(Recipe.parseSets(sets));
    }
    if (th < 1) throw new UserError("--threads must be at least 1");
    if (recipe == null) recipe = Recipe.PINNED.with(overrides);
    if (run == null) {
      run = Path.of("runs", "train-seed" + s + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }
    TrainingLevels.Loaded lvl = TrainingLevels.load(recipe, s, lv);
    TrainingRun.Factory factory = TrainingRun.ENGINE;
    double imitationSeconds = 0;
    if (imitate != null) {
      if (resume != null) throw new UserError("--imitate starts a run; it is not allowed with --resume");
      if (Files.exists(run.resolve("run.json"))) throw new UserError(run + " already holds a run; use another --out");
      ImitationWarmStart.Result w = ImitationWarmStart.run(imitate, recipe, s, th, imitateEpochs, imitateLr, imitateBatch,
          daggerSettings(), run, System.out);
      factory = w.factory();
      imitationSeconds = w.seconds();
    }
    TrainingRun.Setup setup = new TrainingRun.Setup(recipe, overrides, s, th, lvl.train(), lvl.validation(), lvl.source(),
        factory);
    Dashboard dash = plain ? new Dashboard(System.out, false) : Dashboard.forStdout();
    System.out.printf("%s %s: %s, seed %d, %d threads, %s%n", resume != null ? "resuming" : "training", run,
        overrides.isEmpty() ? "pinned recipe" : "overridden recipe " + overrides, s, th, lvl.source());
    TrainingRun.Result res = resume != null ? TrainingRun.resume(setup, run, dash, allowVectorChange) : TrainingRun.start(setup, run, dash);
    if (res.interrupted()) {
      return 130;
    }
    if (imitate != null) {
      addImitationClock(run.resolve("summary.json"), imitationSeconds, res.trainSeconds());
      System.out.printf("imitation %.1f s + PPO %.1f s = train clock %.1f s, %d steps, validation solve rate %.4f; summary %s%n",
          imitationSeconds, res.trainSeconds(), imitationSeconds + res.trainSeconds(), res.steps(), res.valSolveRate(),
          run.resolve("summary.json"));
      return 0;
    }
    System.out.printf("train clock %.1f s, %d steps, validation solve rate %.4f; summary %s%n", res.trainSeconds(), res.steps(),
        res.valSolveRate(), run.resolve("summary.json"));
    return 0;
  }

  /**
   * The run's summary.json counts the PPO clock ({@code train_seconds}); a warm-started run's clock is
   * imitation + PPO, so the summary also gets {@code imitation_seconds} and {@code total_train_seconds}.
   */
  private static void addImitationClock(Path summary, double imitationSeconds, double ppoSeconds) throws java.io.IOException {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    var node = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(summary.toFile());
    node.put("imitation_seconds", imitationSeconds);
    node.put("total_train_seconds", imitationSeconds + ppoSeconds);
    dev.speedrun.rl.Checkpoints.atomicWrite(summary, json.writerWithDefaultPrettyPrinter().writeValueAsBytes(node));
  }

  /** The levels root from a stored source description ("ROOT (split: n levels)"). */
  private static String levelsRoot(String source) {
    int p = source.indexOf(" (");
    String root = p > 0 ? source.substring(0, p) : source;
    return Files.isDirectory(Path.of(root)) ? root : null;
  }

  private ImitationWarmStart.Dagger daggerSettings() {
    if (dagger == null) return ImitationWarmStart.Dagger.NONE;
    if (dagger.size() != 4 || dagger.stream().anyMatch(v -> v < 1)) {
      throw new UserError("--dagger " + dagger + ": expected four positive numbers ROUNDS,PUZZLES,STEPS,EPOCHS");
    }
    return new ImitationWarmStart.Dagger(dagger.get(0), dagger.get(1), dagger.get(2), dagger.get(3));
  }
}
