package dev.speedrun.rl;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.nn.Workers;
import java.lang.management.ManagementFactory;

/**
 * End-to-end training speed of a recipe: whole iterations (rollout + update) of {@link Trainer},
 * no disk, no validation, after warm-up iterations (JIT). Reports steps/s, the time split between
 * environment (sampling + env.step), rollout forward and learning, and FLOPs per env step.
 */
public final class TrainBench {
  private TrainBench() {}

  public record Figure(int threads, int iterations, double seconds, double stepsPerSecond, double envSeconds,
      double forwardSeconds, double learnSeconds, double cpuSeconds) {
    public double cpuShare() { return cpuSeconds / (seconds * threads); }
  }

  public static Figure run(Recipe r, LevelSampler levels, int threads, int warmup, int iterations, long seed) {
    PolicyNet net = Engine.policy(r, seed);
    try (Workers w = new Workers(r.overlap() ? 1 : threads)) {
      var opt = Engine.optimizer(r, net);
      Engine.useWorkers(r, net, opt, w);
      Trainer tr = new Trainer(r, seed, net, r.overlap() ? Engine.policy(r, seed) : null, opt, levels,
          Engine.shardPool(r, w), () -> Engine.policy(r, seed));
      for (int i = 0; i < warmup; i++) tr.iterate();
      var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime(), t0 = System.nanoTime();
      long env = 0, fwd = 0, learn = 0;
      for (int i = 0; i < iterations; i++) {
        tr.iterate();
        env += tr.nanosEnv;
        fwd += tr.nanosForward;
        learn += tr.nanosLearn;
      }
      double sec = (System.nanoTime() - t0) / 1e9, cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
      return new Figure(threads, iterations, sec, (double) iterations * r.stepsPerIteration() / sec, env / 1e9, fwd / 1e9,
          learn / 1e9, cpu);
    }
  }
}
