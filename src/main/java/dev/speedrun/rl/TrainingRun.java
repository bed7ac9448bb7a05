package dev.speedrun.rl;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.Workers;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A training run in a run directory: the loop around {@link Trainer} with the speedrun clock, logs,
 * validation, checkpoints, resume and Ctrl-C handling.
 *
 * <pre>
 *   RUN/run.json        seed, threads, recipe, overrides, level source (what --resume needs)
 *   RUN/log.txt         header (recipe, revision, JDK, machine, date), one "step:" line per iteration,
 *                       "val:" lines, checkpoint and resume notes, the final summary
 *   RUN/metrics.jsonl   one JSON object per iteration, CleanRL names (charts/..., losses/..., val/...)
 *   RUN/checkpoints/    see {@link Checkpoints}
 *   RUN/summary.json    at the end: train_seconds, steps, seed, overridden, recipe, final checkpoint
 * </pre>
 *
 * <p>The clock starts just before the first environment step of the first rollout (after JVM start
 * and level loading) and stops after the last optimizer update; checkpoint writes and validation in
 * between count; a resumed run adds the time recorded in the checkpoint it resumed from.
 */
public final class TrainingRun {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Forward/backward/step passes of the JIT warm-up before the clock. */
  static final int WARMUP_PASSES = 1000;

  /** Creates the policy and optimizer of a run (the network engine in production, fixtures in tests). */
  public interface Factory {
    PolicyNet policy(Recipe r, long seed);

    Optimizer optimizer(Recipe r, PolicyNet net);
  }

  public static final Factory ENGINE = new Factory() {
    @Override public PolicyNet policy(Recipe r, long seed) { return Engine.policy(r, seed); }

    @Override public Optimizer optimizer(Recipe r, PolicyNet net) { return Engine.optimizer(r, net); }
  };

  /** Everything a run is made of. {@code overrides} are the --set pairs (empty for the pinned recipe). */
  public record Setup(Recipe recipe, Map<String, String> overrides, long seed, int threads, LevelSampler train,
      List<Level> validation, String levelSource, Factory factory) {
    public boolean overridden() { return !overrides.isEmpty(); }
  }

  /** The outcome of one process's part of a run. */
  public record Result(Path runDir, boolean finished, boolean interrupted, double trainSeconds, long steps,
      long iterations, Path checkpoint, double valSolveRate, double trainSolveRate) {}

  private final Setup setup;
  private final Path run;
  private final Dashboard dash;
  private final PrintStream log;
  /** Test hook: stop this process after so many iterations without a final checkpoint (a simulated kill). */
  long stopAfter = -1;
  /** Test hook: request a graceful stop (as Ctrl-C or SIGTERM does) after so many iterations. */
  long interruptAfter = -1;
  private volatile boolean stopRequested;

  private TrainingRun(Setup setup, Path run, Dashboard dash, PrintStream log) {
    this.setup = setup;
    this.run = run;
    this.dash = dash;
    this.log = log;
  }

  /** Starts a new run in {@code run} (created; must not hold a run already). */
  public static Result start(Setup s, Path run, Dashboard dash) throws IOException {
    return start(s, run, dash, -1);
  }

  static Result start(Setup s, Path run, Dashboard dash, long stopAfter) throws IOException {
    return start(s, run, dash, stopAfter, -1);
  }

  static Result start(Setup s, Path run, Dashboard dash, long stopAfter, long interruptAfter) throws IOException {
    if (Files.exists(run.resolve("run.json"))) {
      throw new UserError(run + " already holds a run; use --resume " + run + " or another --out");
    }
    Files.createDirectories(run);
    Map<String, Object> rj = new LinkedHashMap<>();
    rj.put("seed", s.seed());
    rj.put("threads", s.threads());
    rj.put("overridden", s.overridden());
    rj.put("overrides", s.overrides());
    rj.put("levels", s.levelSource());
    rj.put("recipe", s.recipe().asMap());
    Checkpoints.atomicWrite(run.resolve("run.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(rj));
    try (PrintStream log = openLog(run)) {
      log.print(header(s));
      log.flush();
      TrainingRun tr = new TrainingRun(s, run, dash, log);
      tr.stopAfter = stopAfter;
      tr.interruptAfter = interruptAfter;
      return tr.loop(false);
    }
  }

  /** Continues the run in {@code run} from its latest checkpoint. */
  public static Result resume(Setup s, Path run, Dashboard dash) throws IOException {
    return resume(s, run, dash, false);
  }

  /**
   * As {@link #resume(Setup, Path, Dashboard)}; a checkpoint written at another vector width than this
   * machine's is refused unless {@code allowVectorChange}, since the run would go on with other
   * summation orders than its seed gives at the width it started with.
   */
  public static Result resume(Setup s, Path run, Dashboard dash, boolean allowVectorChange) throws IOException {
    if (Files.exists(run.resolve("summary.json"))) {
      throw new UserError(run + " has finished already (it has a summary.json); nothing to resume");
    }
    String widthNote = null;
    if (Files.isRegularFile(Checkpoints.dir(run).resolve("latest"))) { // checked before the log is opened
      Path ck = Checkpoints.latest(run);
      Checkpoints.requireUnpacked(ck);
      widthNote = vectorWidthNote(ck, RunInfo.vectorBits(), allowVectorChange);
    }
    try (PrintStream log = openLog(run)) {
      if (widthNote != null) log.println(widthNote);
      TrainingRun tr = new TrainingRun(s, run, dash, log);
      return tr.loop(true);
    }
  }

  /**
   * Null when checkpoint {@code ck} was written at {@code bits} (or before widths were recorded); else
   * a log line saying the width changes, if {@code allow}; else a user error.
   */
  static String vectorWidthNote(Path ck, int bits, boolean allow) {
    Object w = Checkpoints.meta(ck).get("vector_bits");
    if (!(w instanceof Number n) || n.intValue() == bits) return null;
    if (!allow) {
      throw new UserError("cannot resume " + ck.getParent().getParent() + " bit for bit here: its checkpoint " + ck.getFileName()
          + " was written with " + n.intValue() + "-bit vectors and this machine has " + bits + "-bit vectors, which sum in "
          + "other orders; resume it on a machine with " + n.intValue() + "-bit vectors, or pass --allow-vector-change to go on "
          + "here (the run is then no longer determined by its seed alone)");
    }
    return "vector width: " + n.intValue() + " -> " + bits + " bits from " + ck.getFileName()
        + " on (--allow-vector-change): from here the run is not the one its seed gives at " + n.intValue() + " bits";
  }

  /** The seed, threads, recipe and overrides stored in {@code run/run.json}. */
  /** {@code recipe}: every field as stored (null in run directories written before it was stored). */
  public record Stored(long seed, int threads, Map<String, String> overrides, String levels, Map<String, Object> recipe) {}

  @SuppressWarnings("unchecked")
  public static Stored stored(Path run) {
    Path f = run.resolve("run.json");
    if (!Files.isRegularFile(f)) throw new UserError(run + " is not a run directory (no run.json)");
    try {
      Map<String, Object> m = JSON.readValue(f.toFile(), Map.class);
      Map<String, String> ov = new LinkedHashMap<>();
      ((Map<String, Object>) m.get("overrides")).forEach((k, v) -> ov.put(k, String.valueOf(v)));
      return new Stored(((Number) m.get("seed")).longValue(), ((Number) m.get("threads")).intValue(), ov,
          (String) m.get("levels"), (Map<String, Object>) m.get("recipe"));
    } catch (IOException | RuntimeException e) {
      throw new UserError("cannot read " + f + ": " + e.getMessage());
    }
  }

  private static PrintStream openLog(Path run) throws IOException {
    return new PrintStream(Files.newOutputStream(run.resolve("log.txt"), StandardOpenOption.CREATE,
        StandardOpenOption.APPEND), true, StandardCharsets.UTF_8);
  }

  static String header(Setup s) {
    StringBuilder sb = new StringBuilder();
    sb.append("speedrun train\n");
    sb.append("date: ").append(Instant.now()).append('\n');
    sb.append("revision: ").append(RunInfo.revisionText()).append('\n');
    sb.append("jdk: ").append(RunInfo.jdk()).append('\n');
    sb.append("machine: ").append(RunInfo.machine()).append('\n');
    sb.append("seed: ").append(s.seed()).append('\n');
    sb.append("threads: ").append(s.threads()).append('\n');
    sb.append("levels: ").append(s.levelSource()).append('\n');
    sb.append("validation levels: ").append(s.validation().size()).append('\n');
    sb.append("overridden: ").append(s.overridden() ? "yes " + s.overrides() + " (cannot become a record)" : "no (pinned recipe)").append('\n');
    sb.append(String.format("flops/step: %.3g (forward %.0f multiply-adds per env step)%n", Engine.flopsPerStep(s.recipe()), Engine.forwardMacs(s.recipe())));
    sb.append("recipe:\n").append(s.recipe().describe());
    return sb.toString();
  }

  private Result loop(boolean resuming) throws IOException {
    Recipe r = setup.recipe();
    PolicyNet net = setup.factory().policy(r, setup.seed());
    // Both phases split over the engine's worker pool (results do not depend on the thread count).
    // With overlap, the actor and the learner run on one thread each instead.
    // With shards, each shard's passes run on one thread and the shards on the pool.
    Workers workers = new Workers(r.overlap() ? 1 : setup.threads());
    Optimizer opt = setup.factory().optimizer(r, net);
    Engine.useWorkers(r, net, opt, workers);
    // JIT warm-up on a throwaway policy (the network engine's), before the clock: until the Vector
    // API code is compiled it runs in a slow fallback. Touches nothing of this run; logged.
    double warm = net instanceof DefaultPolicy dp ? DefaultPolicy.warmUp(dp.config(), workers, WARMUP_PASSES)
        : net instanceof dev.speedrun.nn.ConvPolicy cp ? dev.speedrun.nn.ConvPolicy.warmUp(cp.config(), workers, WARMUP_PASSES / 10)
        : net instanceof dev.speedrun.nn.ConvGruPolicy gp ? dev.speedrun.nn.ConvGruPolicy.warmUp(gp.config(), WARMUP_PASSES / 5)
        : -1; // a test fixture: nothing to compile
    if (warm >= 0) log.printf("warm-up: %.1f s of JIT compilation on a throwaway policy, before the clock%n", warm);
    PolicyNet actor = r.overlap() ? setup.factory().policy(r, setup.seed()) : null;
    Trainer tr = new Trainer(r, setup.seed(), net, actor, opt, setup.train(), Engine.shardPool(r, workers),
        () -> Engine.policy(r, setup.seed()));
    double clockBase = 0;
    if (resuming) {
      Checkpoints.cleanTemporaries(run);
      Path ck = Checkpoints.latest(run);
      Checkpoints.read(ck, tr);
      clockBase = ((Number) Checkpoints.meta(ck).get("train_seconds")).doubleValue();
      truncateMetrics(tr.iteration());
      log.printf("resume: from %s at iteration %d, step %d, clock %.1fs (%s); machine: %s; jdk: %s; revision: %s%n",
          run.relativize(ck), tr.iteration(), tr.globalStep(), clockBase, Instant.now(), RunInfo.machine(), RunInfo.jdk(),
          RunInfo.revisionText());
    }
    Thread hook = new Thread(() -> {
      stopRequested = true;
      try {
        done.await(120, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "train-ctrl-c");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return body(tr, clockBase);
    } finally {
      workers.close();
      done.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // shutting down: the hook is running and has just been released
      }
    }
  }

  private final CountDownLatch done = new CountDownLatch(1);

  private Result body(Trainer tr, double clockBase) throws IOException {
    Recipe r = setup.recipe();
    long total = r.iterations();
    long startStep = tr.globalStep();
    double val = Double.NaN;
    long nEnv = 0, nFwd = 0, nLearn = 0;
    Trainer.Metrics m = null;
    long segStart = System.nanoTime(); // the clock starts here, before the first env step
    java.util.function.Supplier<Double> clock = () -> clockBase + (System.nanoTime() - segStart) / 1e9;
    long iterationsHere = 0;
    Path lastCheckpoint = null;
    boolean stoppedEarly = false;
    while (!tr.finished()) {
      long i0 = System.nanoTime();
      m = tr.iterate();
      double iterSec = (System.nanoTime() - i0) / 1e9;
      nEnv += tr.nanosEnv;
      nFwd += tr.nanosForward;
      nLearn += tr.nanosLearn;
      iterationsHere++;
      boolean last = tr.finished();
      double now = clock.get();
      double sps = r.stepsPerIteration() / iterSec;
      double avgSps = (tr.globalStep() - startStep) / ((System.nanoTime() - segStart) / 1e9);
      Map<String, Object> row = metricsRow(m, now, sps);
      row.put("time/env_s", tr.nanosEnv / 1e9);
      row.put("time/forward_s", tr.nanosForward / 1e9);
      row.put("time/learn_s", tr.nanosLearn / 1e9);
      row.put("charts/target_rate", nanToNull(tr.targetRate()));
      Trainer.PlrStats ps = tr.plrStats();
      if (ps != null) {
        row.put("plr/buffer_size", ps.buffer());
        row.put("plr/replay_fraction", nanToNull(ps.replayFraction()));
        row.put("plr/mean_score", nanToNull(ps.meanScore()));
        row.put("plr/max_score", nanToNull(ps.maxScore()));
        row.put("plr/replay_episodes", ps.replayEpisodes());
        row.put("plr/replay_solve_rate", nanToNull(ps.replaySolveRate()));
        row.put("plr/replay_target_rate", nanToNull(ps.replayTargetRate()));
        row.put("plr/new_episodes", ps.newEpisodes());
        row.put("plr/new_solve_rate", nanToNull(ps.newSolveRate()));
        row.put("plr/new_target_rate", nanToNull(ps.newTargetRate()));
      }
      boolean validate = !last && r.valInterval() > 0 && m.iteration() % r.valInterval() == 0;
      if (validate) {
        val = Trainer.validate(tr.policy(), setup.validation());
        row.put("val/solve_rate", val);
        log.printf("val: iter %d step %d solve_rate %.4f (%d levels)%n", m.iteration(), m.globalStep(), val, setup.validation().size());
        stoppedEarly = r.stopValSolveRate() > 0 && val >= r.stopValSolveRate();
      }
      appendMetrics(row);
      log.println(stepLine(m, total, now, sps) + plrLine(tr));
      dash.update(m, total, r.totalSteps(), now, sps, avgSps, val, nEnv, nFwd, nLearn, stepLine(m, total, now, sps));
      if (stoppedEarly) {
        log.printf("early stop: validation solve rate %.4f >= stopValSolveRate %.4f at iteration %d, step %d%n", val,
            r.stopValSolveRate(), m.iteration(), m.globalStep());
        break;
      }
      if (stopAfter >= 0 && iterationsHere >= stopAfter) {
        return new Result(run, false, false, now, tr.globalStep(), tr.iteration(), lastCheckpoint, val, m.solveRate());
      }
      if (interruptAfter >= 0 && iterationsHere >= interruptAfter) stopRequested = true;
      if (stopRequested) {
        Path ck = checkpoint(tr, clock);
        log.printf("interrupted: checkpoint %s written at iteration %d; resume with --resume %s%n", run.relativize(ck), tr.iteration(), run);
        // Said here, not by the command: once run() returns, the shutdown hook lets the JVM halt,
        // which cut the command's own message short mid-line.
        dash.finish(String.format("interrupted: checkpoint %s; continue with ./speedrun train --resume %s", ck, run));
        return new Result(run, false, true, clock.get(), tr.globalStep(), tr.iteration(), ck, val, m.solveRate());
      }
      if (!last && r.checkpointInterval() > 0 && m.iteration() % r.checkpointInterval() == 0) {
        lastCheckpoint = checkpoint(tr, clock);
      }
    }
    double trainSeconds = clock.get(); // stops after the last optimizer update
    java.util.function.Supplier<Double> stopped = () -> trainSeconds;
    Path ck = checkpoint(tr, stopped);
    val = Trainer.validate(tr.policy(), setup.validation());
    double trainSolve = m == null ? Double.NaN : m.solveRate();
    Map<String, Object> fin = new LinkedHashMap<>();
    fin.put("global_step", tr.globalStep());
    fin.put("iteration", tr.iteration());
    fin.put("val/solve_rate", val);
    fin.put("final", true);
    appendMetrics(fin);
    log.printf("val: iter %d step %d solve_rate %.4f (%d levels, final, not timed)%n", tr.iteration(), tr.globalStep(), val, setup.validation().size());
    Map<String, Object> sum = new LinkedHashMap<>();
    sum.put("train_seconds", trainSeconds);
    sum.put("steps", tr.globalStep());
    sum.put("iterations", tr.iteration());
    sum.put("stopped_early", stoppedEarly);
    sum.put("seed", setup.seed());
    sum.put("threads", setup.threads());
    sum.put("overridden", setup.overridden());
    sum.put("overrides", setup.overrides());
    sum.put("recipe", setup.recipe().asMap());
    sum.put("final_checkpoint", run.relativize(ck.resolve("policy.safetensors")).toString());
    sum.put("val_solve_rate", val);
    sum.put("val_levels", setup.validation().size());
    sum.put("train_solve_rate", trainSolve);
    sum.put("revision", RunInfo.revision());
    sum.put("jdk", RunInfo.jdk());
    sum.put("machine", RunInfo.machine());
    sum.put("flops_per_step", Engine.flopsPerStep(setup.recipe()));
    Checkpoints.atomicWrite(run.resolve("summary.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(sum));
    log.printf("done: %d steps in %.1f s of training clock (%s); final checkpoint %s; validation solve rate %.4f%n",
        tr.globalStep(), trainSeconds, clockString(trainSeconds), run.relativize(ck), val);
    dash.finish(String.format("done: %d steps, train clock %s, val solve rate %.4f, run %s", tr.globalStep(),
        clockString(trainSeconds), val, run));
    return new Result(run, true, false, trainSeconds, tr.globalStep(), tr.iteration(), ck, val, trainSolve);
  }

  private Path checkpoint(Trainer tr, java.util.function.Supplier<Double> clock) throws IOException {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("seed", setup.seed());
    meta.put("threads", setup.threads());
    meta.put("overridden", setup.overridden());
    meta.put("vector_bits", RunInfo.vectorBits());
    meta.put("machine", RunInfo.machine());
    Path ck = Checkpoints.write(run, tr, meta, clock);
    log.printf("checkpoint: %s (iteration %d, step %d)%n", run.relativize(ck), tr.iteration(), tr.globalStep());
    return ck;
  }

  static String clockString(double s) {
    long t = Math.round(s);
    return t >= 3600 ? String.format("%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60) : String.format("%d:%02d", t / 60, t % 60);
  }

  static String stepLine(Trainer.Metrics m, long total, double now, double sps) {
    return String.format(
        "step: iter %d/%d steps %d wall %.1fs sps %.0f solve %.4f return %.3f length %.1f pg %.4f vf %.4f ent %.4f kl %.5f clip %.4f lr %.3g gnorm %.3f",
        m.iteration(), total, m.globalStep(), now, sps, m.solveRate(), m.episodicReturn(), m.episodicLength(),
        m.policyLoss(), m.valueLoss(), m.entropy(), m.approxKl(), m.clipFrac(), m.learningRate(), m.gradNorm());
  }

  /** The step line's level-replay tail: target rate, buffer, replay fraction, mean score, solve rates replayed/new. */
  static String plrLine(Trainer tr) {
    Trainer.PlrStats p = tr.plrStats();
    String t = String.format(" targets %.4f", tr.targetRate());
    if (p == null) return t;
    return t + String.format(" plr buf %d replay %.3f score %.4g max %.4g solve_replayed %.4f (%d) solve_new %.4f (%d)",
        p.buffer(), p.replayFraction(), p.meanScore(), p.maxScore(), p.replaySolveRate(), p.replayEpisodes(),
        p.newSolveRate(), p.newEpisodes());
  }

  private static Map<String, Object> metricsRow(Trainer.Metrics m, double now, double sps) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("iteration", m.iteration());
    row.put("global_step", m.globalStep());
    row.put("time/wall_clock_s", now);
    row.put("charts/SPS", sps);
    row.put("charts/solve_rate", nanToNull(m.solveRate()));
    row.put("charts/episodic_return", nanToNull(m.episodicReturn()));
    row.put("charts/episodic_length", nanToNull(m.episodicLength()));
    row.put("charts/episodes", m.episodes());
    row.put("charts/learning_rate", m.learningRate());
    row.put("losses/policy_loss", m.policyLoss());
    row.put("losses/value_loss", m.valueLoss());
    row.put("losses/entropy", m.entropy());
    row.put("losses/approx_kl", m.approxKl());
    row.put("losses/clipfrac", m.clipFrac());
    row.put("losses/grad_norm", m.gradNorm());
    return row;
  }

  private static Object nanToNull(double v) {
    return Double.isNaN(v) ? null : v;
  }

  private void appendMetrics(Map<String, Object> row) throws IOException {
    byte[] line = (JSON.writeValueAsString(row) + "\n").getBytes(StandardCharsets.UTF_8);
    Files.write(run.resolve("metrics.jsonl"), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** On resume: keeps only complete metric rows up to the checkpoint's iteration (atomic rewrite). */
  private void truncateMetrics(long iteration) throws IOException {
    Path f = run.resolve("metrics.jsonl");
    if (!Files.exists(f)) return;
    Checkpoints.atomicWrite(f, rowsUpTo(Files.readAllLines(f), iteration).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The metric rows among {@code lines} up to {@code iteration} (not a final validation row, not a
   * line cut by a kill), each followed by a newline: what a run resumed from, or forked at, that
   * iteration's checkpoint keeps.
   */
  @SuppressWarnings("unchecked")
  static String rowsUpTo(List<String> lines, long iteration) {
    StringBuilder sb = new StringBuilder();
    for (String line : lines) {
      try {
        Map<String, Object> row = JSON.readValue(line, Map.class);
        Object it = row.get("iteration");
        if (it instanceof Number n && n.longValue() <= iteration && !row.containsKey("final")) sb.append(line).append('\n');
      } catch (IOException e) {
        // a line cut by a kill (or a blank one): dropped
      }
    }
    return sb.toString();
  }
}
