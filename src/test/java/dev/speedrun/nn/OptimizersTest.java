package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.env.Rng;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class OptimizersTest {

  /** Eigenvalues of a symmetric matrix by cyclic Jacobi rotations, in double precision. */
  static double[] symmetricEigenvalues(double[][] a0) {
    int n = a0.length;
    double[][] a = new double[n][];
    for (int i = 0; i < n; i++) a[i] = a0[i].clone();
    for (int sweep = 0; sweep < 100; sweep++) {
      double off = 0;
      for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) off += a[i][j] * a[i][j];
      if (off < 1e-22) break;
      for (int p = 0; p < n; p++) {
        for (int q = p + 1; q < n; q++) {
          if (Math.abs(a[p][q]) < 1e-300) continue;
          double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
          double t = Math.signum(theta) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
          if (theta == 0) t = 1;
          double c = 1 / Math.sqrt(t * t + 1), s = t * c;
          for (int k = 0; k < n; k++) { // rotate columns p, q
            double akp = a[k][p], akq = a[k][q];
            a[k][p] = c * akp - s * akq;
            a[k][q] = s * akp + c * akq;
          }
          for (int k = 0; k < n; k++) { // rotate rows p, q
            double apk = a[p][k], aqk = a[q][k];
            a[p][k] = c * apk - s * aqk;
            a[q][k] = s * apk + c * aqk;
          }
        }
      }
    }
    double[] ev = new double[n];
    for (int i = 0; i < n; i++) ev[i] = a[i][i];
    return ev;
  }

  /** Singular values of x[rows][cols], from the eigenvalues of the smaller Gram matrix. */
  static double[] singularValues(float[] x, int rows, int cols) {
    int r = Math.min(rows, cols);
    double[][] g = new double[r][r];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        double s = 0;
        if (rows <= cols) for (int k = 0; k < cols; k++) s += (double) x[i * cols + k] * x[j * cols + k];
        else for (int k = 0; k < rows; k++) s += (double) x[k * cols + i] * x[k * cols + j];
        g[i][j] = s;
      }
    }
    double[] ev = symmetricEigenvalues(g);
    for (int i = 0; i < r; i++) ev[i] = Math.sqrt(Math.max(0, ev[i]));
    return ev;
  }

  @Test
  void newtonSchulzGivesSingularValuesNearOne() {
    for (int[] shape : new int[][] {{24, 64}, {64, 24}, {32, 32}}) {
      int rows = shape[0], cols = shape[1], n = rows * cols, r = Math.min(rows, cols);
      Rng rng = new Rng(rows * 100 + cols);
      float[] g = new float[n];
      for (int i = 0; i < n; i++) g[i] = (float) (rng.nextDouble() - 0.5) * (1 + i % 7); // uneven spectrum
      double nuclear = 0;
      for (double s : singularValues(g, rows, cols)) nuclear += s;

      float[] x = g.clone(), tmp = new float[n], a = new float[r * r], aa = new float[r * r];
      Muon.orthogonalize(x, rows, cols, 5, Muon.NS_A, Muon.NS_B, Muon.NS_C, tmp, a, aa);
      double[] sv = singularValues(x, rows, cols);
      // Keller Jordan's quintic: fast, singular values in a band around 1 rather than at 1.
      for (double s : sv) assertThat(s).as("quintic %dx%d", rows, cols).isBetween(0.6, 1.25);

      float[] y = g.clone();
      Muon.orthogonalize(y, rows, cols, 40, 1.5f, -0.5f, 0f, tmp, a, aa);
      for (double s : singularValues(y, rows, cols)) assertThat(s).as("cubic %dx%d", rows, cols).isCloseTo(1.0, within(1e-3));
      // The converged X is the polar factor U V^T of G: <G, X> equals G's nuclear norm.
      double dot = 0;
      for (int i = 0; i < n; i++) dot += (double) g[i] * y[i];
      assertThat(dot).isCloseTo(nuclear, within(1e-3 * nuclear));
    }
  }

  @Test
  void muonGivesTheSameBitsOnOneAndTwoThreads() {
    float[][] results = new float[2][];
    for (int threads = 1; threads <= 2; threads++) {
      Params p = new Params();
      p.add("w", 96, 40);
      p.add("b", 7);
      p.allocate();
      Rng rng = new Rng(3);
      for (int i = 0; i < p.size(); i++) {
        p.data[i] = rng.nextFloat() - 0.5f;
        p.grad[i] = rng.nextFloat() - 0.5f;
      }
      try (Workers w = new Workers(threads)) {
        Muon m = new Muon(p, Muon.Config.DEFAULT);
        m.setWorkers(w);
        m.step(0.01f);
        m.step(0.01f);
      }
      results[threads - 1] = p.data.clone();
    }
    assertThat(results[1]).containsExactly(results[0]);
  }

  @Test
  void adamFirstStepMovesEachWeightByTheLearningRateAgainstItsGradient() {
    Params p = new Params();
    p.add("w", 2, 2);
    p.add("b", 3);
    p.allocate();
    float[] g = {0.5f, -2f, 1e-3f, -7f, 3f, -0.1f, 0.2f};
    System.arraycopy(g, 0, p.grad, 0, g.length);
    var opt = new AdamW(p, new AdamW.Config(0.9f, 0.999f, 1e-8f, 0.1f));
    java.util.Arrays.fill(p.data, 1f);
    opt.step(0.01f);
    for (int i = 0; i < g.length; i++) {
      float decay = i < 4 ? 1 - 0.01f * 0.1f : 1f; // weight decay on the matrix only
      assertThat(p.data[i]).isCloseTo(decay - 0.01f * Math.signum(g[i]), within(1e-5f));
    }
    assertThat(opt.steps()).isEqualTo(1);
    assertThat(opt.state()).containsKeys("m", "v");
  }

  @Test
  void clippingScalesTheGlobalNorm() {
    Params p = new Params();
    p.add("a", 2);
    p.add("b", 1);
    p.allocate();
    p.grad[0] = 3;
    p.grad[1] = 0;
    p.grad[2] = 4;
    assertThat(Optimizer.clipGradNorm(p, 10f)).isEqualTo(5f);
    assertThat(p.grad).containsExactly(3f, 0f, 4f);
    assertThat(Optimizer.clipGradNorm(p, 1f)).isEqualTo(5f);
    assertThat(p.grad[0]).isCloseTo(0.6f, within(1e-6f));
    assertThat(p.grad[2]).isCloseTo(0.8f, within(1e-6f));
  }

  @Test
  void schedules() {
    assertThat(Schedule.constant(0.3f).lr(1000)).isEqualTo(0.3f);
    Schedule lin = Schedule.linear(1f, 0f, 100);
    assertThat(lin.lr(0)).isEqualTo(1f);
    assertThat(lin.lr(25)).isCloseTo(0.75f, within(1e-6f));
    assertThat(lin.lr(100)).isEqualTo(0f);
    assertThat(lin.lr(500)).isEqualTo(0f);
    Schedule cos = Schedule.cosine(1f, 0.1f, 100);
    assertThat(cos.lr(0)).isCloseTo(1f, within(1e-6f));
    assertThat(cos.lr(50)).isCloseTo(0.55f, within(1e-6f));
    assertThat(cos.lr(100)).isCloseTo(0.1f, within(1e-6f));
    Schedule w = Schedule.warmup(10, cos);
    assertThat(w.lr(0)).isCloseTo(0.1f, within(1e-6f));
    assertThat(w.lr(9)).isCloseTo(1f, within(1e-6f));
    assertThat(w.lr(60)).isCloseTo(0.55f, within(1e-6f));
  }

  /**
   * Recall: a bit shown only at step 0 (cell 0 on or off; marker cell 1) must be reported at step
   * T-1 (query cell 2) through logits 0/1, with distracting random cells in between. Without the
   * recurrent state the best cross-entropy is ln 2 = 0.693.
   */
  static double trainRecall(Function<Params, Optimizer> make, float lr, int iters) {
    var net = new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 5));
    Optimizer opt = make.apply(net.params());
    int t = 6, b = 32, rows = t * b, A = 5;
    Rng rng = new Rng(99);
    byte[] obs = new byte[rows * 400];
    int[] bits = new int[b];
    boolean[] reset = new boolean[rows];
    float[] h0 = new float[b * net.stateSize()], logits = new float[rows * A], values = new float[rows];
    float[] dL = new float[rows * A], dV = new float[rows];
    double loss = 0;
    for (int it = 0; it <= iters; it++) {
      java.util.Arrays.fill(obs, (byte) 0);
      for (int bi = 0; bi < b; bi++) {
        bits[bi] = rng.nextInt(2);
        obs[bi * 400] = (byte) bits[bi];
        obs[bi * 400 + 1] = 1;
        for (int ti = 1; ti < t; ti++) for (int q = 0; q < 20; q++) obs[(ti * b + bi) * 400 + 100 + rng.nextInt(300)] = 1;
        obs[((t - 1) * b + bi) * 400 + 2] = 1;
      }
      net.forward(obs, reset, h0, t, b, logits, values);
      java.util.Arrays.fill(dL, 0f);
      loss = 0;
      for (int bi = 0; bi < b; bi++) {
        int o = ((t - 1) * b + bi) * A;
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (int k = 0; k < A; k++) max = Math.max(max, logits[o + k]);
        for (int k = 0; k < A; k++) sum += Math.exp(logits[o + k] - max);
        loss += -(logits[o + bits[bi]] - max - Math.log(sum)) / b;
        for (int k = 0; k < A; k++) dL[o + k] = (float) ((Math.exp(logits[o + k] - max) / sum - (k == bits[bi] ? 1 : 0)) / b);
      }
      if (it == iters) break; // the last batch is fresh: measure only
      net.params().zeroGrad();
      net.backward(dL, dV);
      Optimizer.clipGradNorm(net.params(), 1f);
      opt.step(lr);
    }
    return loss;
  }

  @Test
  void recallTaskTrainsWithAdamW() {
    double loss = trainRecall(p -> new AdamW(p, AdamW.Config.DEFAULT), 1e-2f, 300);
    assertThat(loss).isLessThan(0.01);
  }

  @Test
  void recallTaskTrainsWithMuon() {
    double loss = trainRecall(p -> new Muon(p, Muon.Config.DEFAULT), 1e-2f, 300);
    assertThat(loss).isLessThan(0.01);
  }
}
