package dev.speedrun.env;

import dev.speedrun.sokoban.LevelStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Environment throughput: steps per second of {@link BoxobanEnv} with random actions (precomputed,
 * so the random generator is not measured), the observation kept current every step, auto-resets
 * from a uniform sampler over a level store. With several threads each thread steps its own
 * environments (no per-step synchronization), as separate cores would in a rollout.
 */
public final class EnvBench {
  private EnvBench() {}

  /** One measurement. */
  public record Figure(int envs, int threads, long steps, double seconds, double cpuSeconds) {
    public double stepsPerSecond() { return steps / seconds; }
    /** Steps per second of CPU time the threads actually got (robust to other load on the machine). */
    public double stepsPerCpuSecond() { return steps / cpuSeconds; }
  }

  private static final int ACTION_TABLES = 509; // prime, so tables and episode lengths do not align

  /** Runs {@code envs} environments on each of {@code threads} threads for about {@code seconds}. */
  public static Figure run(LevelStore store, int envs, int threads, double seconds, long seed) throws InterruptedException {
    List<Thread> ts = new ArrayList<>();
    long[] steps = new long[threads];
    long[] nanos = new long[threads], cpu = new long[threads];
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    for (int t = 0; t < threads; t++) {
      int id = t;
      ts.add(new Thread(() -> {
        BoxobanEnv env = new BoxobanEnv(envs, LevelSampler.uniform(store, seed + id));
        env.reset();
        Rng rng = new Rng(seed * 31 + id);
        int[][] actions = new int[ACTION_TABLES][envs];
        for (int[] a : actions) for (int i = 0; i < envs; i++) a[i] = rng.nextInt(BoxobanEnv.NUM_ACTIONS);
        // warm-up (JIT) for a quarter of the time, then measure in chunks until the time is up
        long warm = System.nanoTime() + (long) (seconds * 0.25e9);
        int k = 0;
        while (System.nanoTime() < warm) {
          for (int r = 0; r < 64; r++) {
            env.step(actions[k]);
            if (++k == ACTION_TABLES) k = 0;
          }
        }
        long chunk = Math.max(1, 200_000 / envs);
        long c0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime(), end = t0 + (long) (seconds * 1e9), done = 0;
        long sink = 0;
        while (System.nanoTime() < end) {
          for (long r = 0; r < chunk; r++) {
            env.step(actions[k]);
            if (++k == ACTION_TABLES) k = 0;
          }
          done += chunk;
          sink += env.obs[(int) (done % env.obs.length)];
        }
        nanos[id] = System.nanoTime() - t0;
        cpu[id] = mx.getCurrentThreadCpuTime() - c0;
        steps[id] = done * envs + (sink == Long.MIN_VALUE ? 1 : 0);
      }, "bench-env-" + t));
    }
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    long total = 0;
    double maxSec = 0, cpuSec = 0;
    for (int t = 0; t < threads; t++) {
      total += steps[t];
      maxSec = Math.max(maxSec, nanos[t] / 1e9);
      cpuSec += cpu[t] / 1e9;
    }
    return new Figure(envs, threads, total, maxSec, cpuSec);
  }
}
