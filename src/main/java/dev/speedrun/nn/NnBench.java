package dev.speedrun.nn;

import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/** The measurements behind {@code ./speedrun bench nn}: FMA peak, kernel GFLOP/s, policy timings. */
public final class NnBench {
  private NnBench() {}

  static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

  /** GFLOP/s of an FMA loop (12 independent accumulators, so latency is hidden) on {@code threads} threads at once. */
  public static double fmaPeak(int threads, double seconds) throws InterruptedException {
    double[] gflops = new double[threads];
    Thread[] ts = new Thread[threads];
    for (int w = 0; w < threads; w++) {
      final int id = w;
      // Three rounds, best kept: the first may still run uncompiled code or meet a busy core.
      ts[w] = new Thread(() -> gflops[id] = Math.max(fmaLoop(seconds / 3), Math.max(fmaLoop(seconds / 3), fmaLoop(seconds / 3))));
      ts[w].start();
    }
    double sum = 0;
    for (int w = 0; w < threads; w++) {
      ts[w].join();
      sum += gflops[w];
    }
    return sum;
  }

  static volatile float sink;

  /** GFLOP/s per CPU-second of this thread (descheduled time does not count). */
  private static double fmaLoop(double seconds) {
    for (int i = 0; i < 2000; i++) fmaBlock(1000); // let C2 compile the block before timing
    long reps = 0, start = System.nanoTime(), end = start + (long) (seconds * 1e9), cpu0 = CPU.getCurrentThreadCpuTime();
    do {
      fmaBlock(20_000);
      reps++;
    } while (System.nanoTime() < end);
    return reps * 20_000.0 * 12 * 2 * F.length() / (CPU.getCurrentThreadCpuTime() - cpu0);
  }

  private static void fmaBlock(int iters) {
    FloatVector a = FloatVector.broadcast(F, 0.999999f), b = FloatVector.broadcast(F, 1e-7f);
    FloatVector x0 = FloatVector.broadcast(F, 1f), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0;
    FloatVector x8 = x0, x9 = x0, x10 = x0, x11 = x0;
    for (int i = 0; i < iters; i++) {
      x0 = x0.fma(a, b); x1 = x1.fma(a, b); x2 = x2.fma(a, b); x3 = x3.fma(a, b);
      x4 = x4.fma(a, b); x5 = x5.fma(a, b); x6 = x6.fma(a, b); x7 = x7.fma(a, b);
      x8 = x8.fma(a, b); x9 = x9.fma(a, b); x10 = x10.fma(a, b); x11 = x11.fma(a, b);
    }
    sink = x0.add(x1).add(x2).add(x3).add(x4).add(x5).add(x6).add(x7).add(x8).add(x9).add(x10).add(x11)
        .reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
  }

  public record KernelResult(String kernel, int m, int n, int k, int threads, double gflops) {}

  /** GFLOP/s of one kernel layout ("ab", "atb", "abt") at C[m][n], inner dimension k. */
  public static KernelResult kernel(String kind, int m, int n, int k, Workers workers, double seconds) {
    var rng = new dev.speedrun.env.Rng(1);
    float[] a = new float[m * k], b = new float[k * n], c = new float[m * n];
    for (int i = 0; i < a.length; i++) a[i] = rng.nextFloat() - 0.5f;
    for (int i = 0; i < b.length; i++) b[i] = rng.nextFloat() - 0.5f;
    ParMm mm = new ParMm();
    Runnable call = switch (kind) {
      case "ab" -> () -> mm.ab(workers, a, 0, b, 0, c, 0, m, n, k, false);
      case "atb" -> () -> mm.atb(workers, a, 0, b, 0, c, 0, m, n, k, false);
      case "abt" -> () -> mm.abt(workers, a, 0, b, 0, c, 0, m, n, k, false);
      default -> throw new IllegalArgumentException(kind);
    };
    double sec = time(call, seconds, workers.threads());
    return new KernelResult(kind, m, n, k, workers.threads(), 2.0 * m * n * k / sec / 1e9);
  }

  private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * Seconds per call after a warm-up. On one thread: CPU seconds of this thread per call (time
   * spent descheduled does not count, as this machine is shared). On more threads: the best wall
   * time of short batches (other processes only ever make a batch slower).
   */
  static double time(Runnable call, double seconds, int threads) {
    long warmEnd = System.nanoTime() + (long) (seconds * 0.3e9);
    for (int i = 0; i < 20 || System.nanoTime() < warmEnd; i++) call.run(); // the JIT needs calls, not just time
    long t0 = System.nanoTime();
    call.run();
    long one = Math.max(1, System.nanoTime() - t0);
    int perBatch = (int) Math.max(1, Math.min(1_000_000, 2_000_000L / one));
    double best = Double.MAX_VALUE;
    long reps = 0, cpu0 = CPU.getCurrentThreadCpuTime();
    long end = System.nanoTime() + (long) (seconds * 1e9);
    do {
      long s = System.nanoTime();
      for (int i = 0; i < perBatch; i++) call.run();
      best = Math.min(best, (System.nanoTime() - s) / 1e9 / perBatch);
      reps += perBatch;
    } while (System.nanoTime() < end);
    double cpu = (CPU.getCurrentThreadCpuTime() - cpu0) / 1e9 / reps;
    return threads == 1 ? Math.min(cpu, best) : best;
  }

  public static List<KernelResult> kernels(Workers workers, double seconds) {
    List<KernelResult> out = new ArrayList<>();
    for (int[] s : SHAPES) {
      for (String kind : new String[] {"ab", "atb", "abt"}) out.add(kernel(kind, s[0], s[1], s[2], workers, seconds));
    }
    return out;
  }

  /**
   * C[m][n], inner k: the default policy's products (rows 256..4096; widths 128 and 3*128 = 384:
   * the minGRU forward x.W^T is 4096x384x128, its input gradient 4096x128x384, its weight gradient
   * 384x128x4096) and neighbours at widths 64 and 512.
   */
  static final int[][] SHAPES = {{64, 128, 128}, {256, 384, 128}, {1024, 384, 128}, {4096, 384, 128}, {4096, 128, 384},
      {384, 128, 4096}, {256, 64, 64}, {4096, 64, 64}, {1024, 512, 512}};

  public record PolicyResult(String what, int t, int b, int threads, double microsPerSample) {}

  /** Forward + backward of a T x B segment of the default policy, in microseconds per (t, b) sample. */
  public static PolicyResult trainStep(int t, int b, Workers workers, double seconds) {
    var net = new DefaultPolicy(DefaultPolicy.Config.DEFAULT);
    net.setWorkers(workers);
    int rows = t * b, A = net.numActions();
    byte[] obs = boardLikeObs(rows);
    boolean[] reset = new boolean[rows];
    for (int i = 0; i < rows; i += 37) reset[i] = true;
    float[] h0 = new float[b * net.stateSize()], logits = new float[rows * A], values = new float[rows];
    float[] dL = new float[rows * A], dV = new float[rows];
    java.util.Arrays.fill(dL, 1e-3f);
    java.util.Arrays.fill(dV, 1e-3f);
    Runnable call = () -> {
      net.forward(obs, reset, h0, t, b, logits, values);
      net.backward(dL, dV);
    };
    // Twice, keeping the better: a JIT recompilation during the first run (slow on a busy machine) is not the engine's speed.
    double sec = Math.min(time(call, seconds, workers.threads()), time(call, seconds, workers.threads()));
    return new PolicyResult("forward+backward", t, b, workers.threads(), sec * 1e6 / rows);
  }

  /** A rollout step of the default policy for n environments, in microseconds per environment. */
  public static PolicyResult rolloutStep(int n, Workers workers, double seconds) {
    var net = new DefaultPolicy(DefaultPolicy.Config.DEFAULT);
    net.setWorkers(workers);
    byte[] obs = boardLikeObs(n);
    float[] state = new float[n * net.stateSize()], logits = new float[n * net.numActions()], values = new float[n];
    Runnable call = () -> net.step(obs, n, state, logits, values);
    double sec = Math.min(time(call, seconds, workers.threads()), time(call, seconds, workers.threads()));
    return new PolicyResult("rollout step", 1, n, workers.threads(), sec * 1e6 / n);
  }

  /** Observations with about as many ones as a Boxoban board (about 60 of 400). */
  static byte[] boardLikeObs(int rows) {
    var rng = new dev.speedrun.env.Rng(5);
    byte[] obs = new byte[rows * 400];
    for (int i = 0; i < obs.length; i++) obs[i] = (byte) (rng.nextInt(400) < 60 ? 1 : 0);
    return obs;
  }

}
