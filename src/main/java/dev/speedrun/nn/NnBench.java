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
      ts[w] = new Thread(() -> gflops[id] = fmaLoop(seconds));
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

  private static double fmaLoop(double seconds) {
    for (int i = 0; i < 200; i++) fmaBlock(1000); // let C2 compile the block before timing
    long reps = 0, start = System.nanoTime(), end = start + (long) (seconds * 1e9), t;
    do {
      fmaBlock(100_000);
      reps++;
    } while ((t = System.nanoTime()) < end);
    return reps * 100_000.0 * 12 * 2 * F.length() / (t - start);
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
    double sec = time(call, seconds);
    return new KernelResult(kind, m, n, k, workers.threads(), 2.0 * m * n * k / sec / 1e9);
  }

  /** Seconds per call: warm-up, then repeated calls for about {@code seconds}. */
  static double time(Runnable call, double seconds) {
    long warmEnd = System.nanoTime() + (long) (seconds * 0.5e9);
    while (System.nanoTime() < warmEnd) call.run();
    long reps = 0, start = System.nanoTime(), end = start + (long) (seconds * 1e9), t;
    do {
      call.run();
      reps++;
    } while ((t = System.nanoTime()) < end);
    return (t - start) / 1e9 / reps;
  }

  public static List<KernelResult> kernels(Workers workers, double seconds) {
    List<KernelResult> out = new ArrayList<>();
    for (int[] s : new int[][] {{64, 128, 128}, {256, 384, 128}, {1024, 384, 128}, {4096, 384, 128}, {4096, 128, 384},
        {256, 64, 64}, {1024, 512, 512}}) {
      for (String kind : new String[] {"ab", "atb", "abt"}) out.add(kernel(kind, s[0], s[1], s[2], workers, seconds));
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    System.out.printf("peak 1 thread %.1f GFLOP/s, 2 threads %.1f%n", fmaPeak(1, 1), fmaPeak(2, 1));
    try (Workers w1 = new Workers(1); Workers w2 = new Workers(2)) {
      kernels(w1, 0.05);
      kernels(w1, 0.05);
      for (KernelResult r : kernels(w1, 0.3)) System.out.println(r);
      for (KernelResult r : kernels(w2, 0.3)) System.out.println(r);
    }
  }
}
