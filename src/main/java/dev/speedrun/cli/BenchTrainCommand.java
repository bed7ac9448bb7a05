package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.rl.Engine;
import dev.speedrun.rl.Recipe;
import dev.speedrun.rl.RunInfo;
import dev.speedrun.rl.TrainBench;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun bench train}: end-to-end training steps/s of the pinned recipe. */
@Command(name = "train", mixinStandardHelpOptions = true,
    description = {"End-to-end training steps/s of the pinned recipe (rollout + PPO update, no disk), with the time",
        "split between environment, rollout forward and learning, and FLOPs per environment step. Also measures",
        "one thread, to estimate what overlapping rollout and learning on two threads could reach."})
public final class BenchTrainCommand implements Callable<Integer> {
  @Option(names = "--threads", defaultValue = "2", description = "Threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--iterations", defaultValue = "3", description = "Measured iterations (default ${DEFAULT-VALUE}).")
  int iterations;

  @Option(names = "--warmup", defaultValue = "2", description = "Warm-up iterations (default ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root.")
  String levels;

  @Option(names = "--json", description = "Machine-readable output.")
  boolean json;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Measure a variant of the pinned recipe (e.g. --set hidden=64).")
  java.util.List<String> sets;

  @Override
  public Integer call() {
    java.util.Map<String, String> ov = Recipe.parseSets(sets);
    Recipe r = Recipe.PINNED.with(ov);
    String name = ov.isEmpty() ? "pinned" : "pinned with " + ov;
    LevelStore store = LevelSources.split(levels, r.trainLevels());
    LevelSampler sampler = LevelSampler.uniform(store, 42);
    // One thread first (it also warms the JIT for the others), then the other mode, then the recipe's own.
    // The other mode: with shards, one policy split by rows (shards=1); else the other overlap setting.
    Recipe other = r.shards() > 1 ? r.with(java.util.Map.of("shards", "1"))
        : r.with(java.util.Map.of("overlap", Boolean.toString(!r.overlap())));
    TrainBench.Figure one = threads > 1 ? TrainBench.run(r.with(java.util.Map.of("overlap", "false")), sampler, 1, warmup,
        iterations, 42) : null;
    TrainBench.Figure alt = threads > 1 ? TrainBench.run(other, sampler, threads, warmup, iterations, 42) : null;
    // Without shards and overlap: also the data-parallel split, one shard per thread, where the shapes allow it.
    boolean tryShards = threads > 1 && r.shards() == 1 && !r.overlap() && r.numEnvs() % threads == 0
        && r.minibatchSegments() % threads == 0;
    TrainBench.Figure sharded = tryShards
        ? TrainBench.run(r.with(java.util.Map.of("shards", Integer.toString(threads))), sampler, threads, warmup, iterations, 42)
        : null;
    TrainBench.Figure many = TrainBench.run(r, sampler, threads, warmup, iterations, 42);
    if (one == null) {
      one = many;
      alt = many;
    }
    double flops = Engine.flopsPerStep(r);
    // Overlap estimate: rollout on one thread while the other learns on the previous batch; an
    // iteration then takes max(rollout, learn) of the one-thread figures (an upper bound of (a)).
    double rollout1 = (one.envSeconds() + one.forwardSeconds()) / one.iterations(), learn1 = one.learnSeconds() / one.iterations();
    double overlapSps = r.stepsPerIteration() / Math.max(rollout1, learn1);
    ObjectNode o = new ObjectMapper().createObjectNode();
    o.put("recipe", name);
    o.put("num_envs", r.numEnvs());
    o.put("horizon", r.horizon());
    o.put("epochs", r.epochs());
    o.put("hidden", r.hidden());
    o.put("layers", r.layers());
    o.put("threads", threads);
    o.put("steps_per_second", Math.round(many.stepsPerSecond()));
    o.put("env_seconds", round(many.envSeconds()));
    o.put("forward_seconds", round(many.forwardSeconds()));
    o.put("learn_seconds", round(many.learnSeconds()));
    o.put("measured_seconds", round(many.seconds()));
    o.put("cpu_share", round(many.cpuShare()));
    o.put("steps_per_cpu_second", Math.round(many.iterations() * (double) r.stepsPerIteration() / many.cpuSeconds()));
    o.put("flops_per_step", Math.round(flops));
    o.put("gflops_per_second", round(flops * many.stepsPerSecond() / 1e9));
    o.put("one_thread_steps_per_second", Math.round(one.stepsPerSecond()));
    o.put("overlap_estimate_steps_per_second", Math.round(overlapSps));
    o.put("overlap", r.overlap());
    o.put("shards", r.shards());
    o.put(r.shards() > 1 ? "unsharded_steps_per_second" : (r.overlap() ? "split" : "overlap") + "_steps_per_second",
        Math.round(alt.stepsPerSecond()));
    if (sharded != null) o.put("shards_" + threads + "_steps_per_second", Math.round(sharded.stepsPerSecond()));
    o.put("machine", RunInfo.machine());
    o.put("jdk", RunInfo.jdk());
    if (json) {
      System.out.println(o.toString());
      return 0;
    }
    double all = many.envSeconds() + many.forwardSeconds() + many.learnSeconds();
    System.out.printf("%s recipe: %d envs x %d steps, %d epochs, policy H=%d L=%d; %s%n", name, r.numEnvs(), r.horizon(),
        r.epochs(), r.hidden(), r.layers(), o.get("machine").asText());
    System.out.printf("%d threads: %,.0f steps/s over %d iterations (%.1f s; cpu share %.2f: %,d steps per CPU-second)%n",
        threads, many.stepsPerSecond(), iterations, many.seconds(), many.cpuShare(), o.get("steps_per_cpu_second").asLong());
    System.out.printf("time split: env %.0f%%  rollout forward %.0f%%  learn %.0f%%%n", 100 * many.envSeconds() / all,
        100 * many.forwardSeconds() / all, 100 * many.learnSeconds() / all);
    System.out.printf("FLOPs per env step: %.3g  -> %.1f GFLOP/s achieved%n", flops, flops * many.stepsPerSecond() / 1e9);
    if (threads > 1) {
      if (r.shards() > 1) {
        System.out.printf("(b) one policy, both phases split over the worker pool by rows (shards=1): %,.0f steps/s on %d threads%n",
            alt.stepsPerSecond(), threads);
      } else {
        System.out.printf("%s (the same recipe with overlap=%s): %,.0f steps/s on %d threads%n",
            other.overlap() ? "(a) rollout and learning overlapped" : "(b) both phases split over the worker pool",
            other.overlap(), alt.stepsPerSecond(), threads);
      }
      if (sharded != null) {
        System.out.printf("(c) data-parallel, one shard per thread (shards=%d; a different gradient summation order): %,.0f steps/s%n",
            threads, sharded.stepsPerSecond());
      }
      System.out.printf("1 thread: %,.0f steps/s; overlapping rollout and learning on 2 threads could reach at most %,.0f steps/s"
          + " (max of the one-thread phases) vs %,.0f measured with both phases split%n", one.stepsPerSecond(), overlapSps,
          many.stepsPerSecond());
    }
    return 0;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
