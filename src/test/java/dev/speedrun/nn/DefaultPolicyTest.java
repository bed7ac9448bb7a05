package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import org.junit.jupiter.api.Test;

class DefaultPolicyTest {
  static final int O = DefaultPolicy.OBS;

  /** Random observation bytes, about 15% ones (a real board has about 60 of 400). */
  static byte[] randomObs(Rng rng, int rows) {
    byte[] obs = new byte[rows * O];
    for (int i = 0; i < obs.length; i++) obs[i] = (byte) (rng.nextFloat() < 0.15f ? 1 : 0);
    return obs;
  }

  static float[] randomFloats(Rng rng, int n, float scale) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) v[i] = (2 * rng.nextFloat() - 1) * scale;
    return v;
  }

  /**
   * The same network written again in double precision, straight from the formulas, one row at a
   * time (no shared code with the float implementation). Returns sum(cL*logits) + sum(cV*values).
   */
  static double referenceLoss(DefaultPolicy.Config cfg, Params p, double[] w, byte[] obs, boolean[] reset,
      float[] h0, int t, int b, float[] cL, float[] cV, double[] logitsOut, double[] valuesOut) {
    int H = cfg.hidden(), L = cfg.layers(), A = cfg.actions(), S = L * H;
    int eW = p.tensor("embed.weight").offset(), eB = p.tensor("embed.bias").offset();
    int pW = p.tensor("policy.weight").offset(), pB = p.tensor("policy.bias").offset();
    int vW = p.tensor("value.weight").offset(), vB = p.tensor("value.bias").offset();
    double[][] h = new double[b][S];
    for (int bi = 0; bi < b; bi++) for (int i = 0; i < S; i++) h[bi][i] = h0[bi * S + i];
    double loss = 0;
    for (int ti = 0; ti < t; ti++) {
      for (int bi = 0; bi < b; bi++) {
        int r = ti * b + bi;
        if (reset[r]) java.util.Arrays.fill(h[bi], 0);
        double[] x = new double[H];
        for (int j = 0; j < H; j++) {
          double s = w[eB + j];
          for (int i = 0; i < O; i++) if (obs[r * O + i] != 0) s += w[eW + i * H + j];
          x[j] = Math.max(0, s);
        }
        for (int l = 0; l < L; l++) {
          int lw = p.tensor("rnn." + l + ".weight").offset(), lb = p.tensor("rnn." + l + ".bias").offset();
          double[] a = new double[3 * H];
          for (int o = 0; o < 3 * H; o++) {
            double s = w[lb + o];
            for (int i = 0; i < H; i++) s += w[lw + o * H + i] * x[i];
            a[o] = s;
          }
          double[] y = new double[H];
          for (int j = 0; j < H; j++) {
            double c = a[j], z = sig(a[H + j]), q = sig(a[2 * H + j]);
            double g = c >= 0 ? c + 0.5 : sig(c);
            double hn = (1 - z) * h[bi][l * H + j] + z * g;
            h[bi][l * H + j] = hn;
            y[j] = q * hn + (1 - q) * x[j];
          }
          x = y;
        }
        for (int k = 0; k < A; k++) {
          double s = w[pB + k];
          for (int j = 0; j < H; j++) s += w[pW + k * H + j] * x[j];
          if (logitsOut != null) logitsOut[r * A + k] = s;
          loss += cL[r * A + k] * s;
        }
        double v = w[vB];
        for (int j = 0; j < H; j++) v += w[vW + j] * x[j];
        if (valuesOut != null) valuesOut[r] = v;
        loss += cV[r] * v;
      }
    }
    return loss;
  }

  static double sig(double v) {
    return 1 / (1 + Math.exp(-v));
  }

  /**
   * Checks the float backward pass against central differences of the double reference, for every
   * parameter of tensors up to {@code perTensor} elements and a random {@code perTensor} of larger ones.
   * Central differences in double with eps = 1e-6 have truncation error ~1e-12, far below the float
   * gradient's rounding. Tolerance: |analytic - numeric| <= 1e-4 + 1e-4 * |numeric| (observed worst
   * about 1/100 of that).
   */
  static void gradCheck(DefaultPolicy.Config cfg, int t, int b, int threads, int perTensor) {
    var net = new DefaultPolicy(cfg);
    Params p = net.params();
    Rng rng = new Rng(11 + cfg.hidden());
    // Random parameters (biases too) so every path carries signal.
    float[] init = randomFloats(rng, p.size(), 0.5f);
    System.arraycopy(init, 0, p.data, 0, p.size());
    int rows = t * b, S = net.stateSize(), A = cfg.actions();
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[(t / 2) * b + 1] = true; // a reset in the middle of sequence 1
    reset[0] = true; // and one at the start of sequence 0 (h0 ignored there)
    float[] h0 = randomFloats(rng, b * S, 1f);
    float[] cL = randomFloats(rng, rows * A, 1f), cV = randomFloats(rng, rows, 1f);

    float[] logits = new float[rows * A], values = new float[rows];
    try (Workers w = new Workers(threads)) {
      net.setWorkers(w);
      net.forward(obs, reset, h0, t, b, logits, values);
      p.zeroGrad();
      net.backward(cL, cV);
    }

    double[] wd = new double[p.size()];
    for (int i = 0; i < wd.length; i++) wd[i] = p.data[i];
    double[] refLogits = new double[rows * A], refValues = new double[rows];
    referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, refLogits, refValues);
    for (int i = 0; i < rows * A; i++) assertThat((double) logits[i]).isCloseTo(refLogits[i], org.assertj.core.data.Offset.offset(1e-4));
    for (int i = 0; i < rows; i++) assertThat((double) values[i]).isCloseTo(refValues[i], org.assertj.core.data.Offset.offset(1e-4));

    double eps = 1e-6;
    int checked = 0, nonzero = 0;
    for (Params.Tensor ts : p.tensors()) {
      for (int e = 0; e < Math.min(ts.size(), perTensor); e++) {
        int i = ts.offset() + (ts.size() <= perTensor ? e : rng.nextInt(ts.size()));
        double keep = wd[i];
        wd[i] = keep + eps;
        double fp = referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, null, null);
        wd[i] = keep - eps;
        double fm = referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, null, null);
        wd[i] = keep;
        double num = (fp - fm) / (2 * eps);
        double err = Math.abs(p.grad[i] - num) / (1e-4 + 1e-4 * Math.abs(num));
        assertThat(err).as("param %d (%s): analytic %s numeric %s", i, nameOf(p, i), p.grad[i], num).isLessThanOrEqualTo(1.0);
        checked++;
        if (Math.abs(num) > 1e-3) nonzero++;
      }
    }
    assertThat(nonzero).isGreaterThan(checked / 10); // the check is not vacuous
  }

  @Test
  void gradientsOfEveryParameterMatchDoublePrecisionFiniteDifferences() {
    gradCheck(new DefaultPolicy.Config(8, 2, 5, 7), 6, 3, 1, Integer.MAX_VALUE); // all 3,694 parameters
  }

  @Test
  void gradientsMatchOnTheVectorPathsWithTwoThreads() {
    // Width 40 = two 16-lane vectors and a scalar tail on AVX-512; 5 sequences split over 2 threads.
    gradCheck(new DefaultPolicy.Config(40, 2, 5, 8), 5, 5, 2, 300);
  }

  @Test
  void resultsDoNotDependOnTheThreadCount() {
    var cfg = new DefaultPolicy.Config(48, 2, 5, 1);
    Rng rng = new Rng(3);
    int t = 4, b = 9, rows = t * b;
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[13] = true;
    float[] h0 = randomFloats(rng, b * 96, 1f), dL = randomFloats(rng, rows * 5, 1f), dV = randomFloats(rng, rows, 1f);
    float[][] out = new float[2][];
    for (int threads = 1; threads <= 2; threads++) {
      var net = new DefaultPolicy(cfg);
      float[] logits = new float[rows * 5], values = new float[rows];
      try (Workers w = new Workers(threads)) {
        net.setWorkers(w);
        net.forward(obs, reset, h0, t, b, logits, values);
        net.backward(dL, dV);
      }
      float[] all = java.util.Arrays.copyOf(net.params().grad, net.params().size() + logits.length + values.length);
      System.arraycopy(logits, 0, all, net.params().size(), logits.length);
      System.arraycopy(values, 0, all, net.params().size() + logits.length, values.length);
      out[threads - 1] = all;
    }
    assertThat(out[1]).containsExactly(out[0]);
  }

  @Test
  void resetCutsTheGradientToEarlierSteps() {
    // With a reset before step 1 of every sequence, a loss on step >= 1 cannot reach step 0's input.
    var net = new DefaultPolicy(new DefaultPolicy.Config(8, 1, 5, 3));
    Rng rng = new Rng(5);
    int t = 2, b = 2, rows = t * b;
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = {false, false, true, true};
    float[] dL = new float[rows * 5], dV = new float[rows];
    dV[2] = 1;
    dV[3] = 1;
    net.forward(obs, reset, new float[b * net.stateSize()], t, b, new float[rows * 5], new float[rows]);
    net.params().zeroGrad();
    net.backward(dL, dV);
    float[] g1 = net.params().grad.clone();
    // The same loss when step 0 sees different observations: identical gradients.
    for (int i = 0; i < 2 * O; i++) obs[i] = (byte) (1 - obs[i]);
    net.forward(obs, reset, new float[b * net.stateSize()], t, b, new float[rows * 5], new float[rows]);
    net.params().zeroGrad();
    net.backward(dL, dV);
    assertThat(net.params().grad).containsExactly(g1);
  }

  @Test
  void stepOverTStepsEqualsForwardOverTheSegment() {
    var net = new DefaultPolicy(new DefaultPolicy.Config(40, 2, 5, 9));
    Rng rng = new Rng(21);
    float[] init = randomFloats(rng, net.params().size(), 0.3f);
    System.arraycopy(init, 0, net.params().data, 0, init.length);
    int t = 7, b = 4, rows = t * b, S = net.stateSize();
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[4 * b + 2] = true;
    reset[2 * b] = true;
    float[] h0 = randomFloats(rng, b * S, 1f);
    float[] logits = new float[rows * 5], values = new float[rows];
    net.forward(obs, reset, h0, t, b, logits, values);

    float[] state = h0.clone(), sl = new float[b * 5], sv = new float[b];
    byte[] one = new byte[b * O];
    for (int ti = 0; ti < t; ti++) {
      for (int bi = 0; bi < b; bi++) if (reset[ti * b + bi]) java.util.Arrays.fill(state, bi * S, (bi + 1) * S, 0f);
      System.arraycopy(obs, ti * b * O, one, 0, b * O);
      net.step(one, b, state, sl, sv);
      for (int i = 0; i < b * 5; i++) assertThat(sl[i]).isCloseTo(logits[ti * b * 5 + i], org.assertj.core.data.Offset.offset(1e-5f));
      for (int i = 0; i < b; i++) assertThat(sv[i]).isCloseTo(values[ti * b + i], org.assertj.core.data.Offset.offset(1e-5f));
    }
  }

  @Test
  void warmUpLeavesOtherPoliciesAlone() {
    var cfg = new DefaultPolicy.Config(16, 1, 5, 2);
    var net = new DefaultPolicy(cfg);
    float[] before = net.params().data.clone();
    try (Workers w = new Workers(2)) {
      assertThat(DefaultPolicy.warmUp(cfg, w, 3)).isPositive();
    }
    assertThat(net.params().data).containsExactly(before);
    assertThat(net.params().grad).containsOnly(0f);
  }

  @Test
  void defaultConfigHasTheDocumentedParameterCountAndState() {
    var net = new DefaultPolicy(DefaultPolicy.Config.DEFAULT);
    assertThat(net.params().size()).isEqualTo(151_174);
    assertThat(net.stateSize()).isEqualTo(256);
    assertThat(net.numActions()).isEqualTo(5);
  }

  @Test
  void configRoundTripsThroughJsonAndRejectsNonsense() {
    var c = new DefaultPolicy.Config(64, 3, 5, 42);
    assertThat(DefaultPolicy.Config.fromJson(c.toJson())).isEqualTo(c);
    assertThatThrownBy(() -> DefaultPolicy.Config.fromJson("{\"hidden\":0,\"layers\":1,\"actions\":5,\"seed\":1}"))
        .isInstanceOf(UserError.class).hasMessageContaining("hidden");
    assertThatThrownBy(() -> DefaultPolicy.Config.fromJson("{oops")).isInstanceOf(UserError.class);
  }

  @Test
  void initialisationIsDeterministicFromTheSeed() {
    var a = new DefaultPolicy(new DefaultPolicy.Config(8, 1, 5, 3));
    var b = new DefaultPolicy(new DefaultPolicy.Config(8, 1, 5, 3));
    var c = new DefaultPolicy(new DefaultPolicy.Config(8, 1, 5, 4));
    assertThat(a.params().data).containsExactly(b.params().data);
    assertThat(a.params().data).isNotEqualTo(c.params().data);
  }

  static String nameOf(Params p, int i) {
    for (Params.Tensor t : p.tensors()) if (i >= t.offset() && i < t.offset() + t.size()) return t.name() + "[" + (i - t.offset()) + "]";
    return "?";
  }
}
