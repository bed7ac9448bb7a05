package dev.speedrun.nn;

import static dev.speedrun.nn.DefaultPolicyTest.randomFloats;
import static dev.speedrun.nn.DefaultPolicyTest.randomObs;
import static dev.speedrun.nn.DefaultPolicyTest.sig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvPolicyTest {
  static final int O = 400;

  /**
   * The network again in double precision, straight from the formulas, one row at a time: direct
   * 3x3 convolutions over [channel][y][x] with zero padding (no im2col, no shared code), the
   * projection over the flattened map (index cell*C + channel), the minGRU and the heads.
   * Returns sum(cL*logits) + sum(cV*values).
   */
  static double referenceLoss(ConvPolicy.Config cfg, Params p, double[] w, byte[] obs, boolean[] reset, float[] h0, int t, int b,
      float[] cL, float[] cV, double[] logitsOut, double[] valuesOut) {
    int C = cfg.channels(), H = cfg.hidden(), L = cfg.layers(), A = cfg.actions(), S = L * H;
    int c1w = p.tensor("conv1.weight").offset(), c1b = p.tensor("conv1.bias").offset();
    int c2w = p.tensor("conv2.weight").offset(), c2b = p.tensor("conv2.bias").offset();
    int prw = p.tensor("proj.weight").offset(), prb = p.tensor("proj.bias").offset();
    int pW = p.tensor("policy.weight").offset(), pB = p.tensor("policy.bias").offset();
    int vW = p.tensor("value.weight").offset(), vB = p.tensor("value.bias").offset();
    double[][] h = new double[b][S];
    for (int bi = 0; bi < b; bi++) for (int i = 0; i < S; i++) h[bi][i] = h0[bi * S + i];
    double loss = 0;
    for (int ti = 0; ti < t; ti++) {
      for (int bi = 0; bi < b; bi++) {
        int r = ti * b + bi;
        if (reset[r]) java.util.Arrays.fill(h[bi], 0);
        double[][][] in = new double[4][10][10];
        for (int c = 0; c < 4; c++) for (int y = 0; y < 10; y++) for (int x = 0; x < 10; x++) in[c][y][x] = obs[r * O + c * 100 + y * 10 + x];
        double[][][] a1 = conv(in, w, c1w, c1b, 4, C);
        if (cfg.crop()) a1 = interior(a1);
        double[][][] a2 = conv(a1, w, c2w, c2b, C, C);
        for (int l = 3; l <= cfg.convs(); l++) {
          a2 = conv(a2, w, p.tensor("conv" + l + ".weight").offset(), p.tensor("conv" + l + ".bias").offset(), C, C);
        }
        int n = a2[0].length; // 10, or 8 with crop
        double[] x0 = new double[H];
        for (int j = 0; j < H; j++) {
          double s = w[prb + j];
          for (int y = 0; y < n; y++) for (int x = 0; x < n; x++) for (int c = 0; c < C; c++) {
            s += w[prw + j * n * n * C + (y * n + x) * C + c] * a2[c][y][x];
          }
          x0[j] = Math.max(0, s);
        }
        double[] xv = x0;
        for (int l = 0; l < L; l++) {
          int lw = p.tensor("rnn." + l + ".weight").offset(), lb = p.tensor("rnn." + l + ".bias").offset();
          double[] y = new double[H];
          for (int j = 0; j < H; j++) {
            double c = w[lb + j], z = w[lb + H + j], q = w[lb + 2 * H + j];
            for (int i = 0; i < H; i++) {
              c += w[lw + j * H + i] * xv[i];
              z += w[lw + (H + j) * H + i] * xv[i];
              q += w[lw + (2 * H + j) * H + i] * xv[i];
            }
            double g = c >= 0 ? c + 0.5 : sig(c);
            double hn = (1 - sig(z)) * h[bi][l * H + j] + sig(z) * g;
            h[bi][l * H + j] = hn;
            y[j] = sig(q) * hn + (1 - sig(q)) * xv[j];
          }
          xv = y;
        }
        for (int k = 0; k < A; k++) {
          double s = w[pB + k];
          for (int j = 0; j < H; j++) s += w[pW + k * H + j] * xv[j];
          if (logitsOut != null) logitsOut[r * A + k] = s;
          loss += cL[r * A + k] * s;
        }
        double v = w[vB];
        for (int j = 0; j < H; j++) v += w[vW + j] * xv[j];
        if (valuesOut != null) valuesOut[r] = v;
        loss += cV[r] * v;
      }
    }
    return loss;
  }

  /** relu(conv3x3(in) + bias) over an n x n map, weight [co][ci][3][3], zero padding 1. */
  static double[][][] conv(double[][][] in, double[] w, int wo, int bo, int ci, int co) {
    int n = in[0].length;
    double[][][] out = new double[co][n][n];
    for (int o = 0; o < co; o++) for (int y = 0; y < n; y++) for (int x = 0; x < n; x++) {
      double s = w[bo + o];
      for (int i = 0; i < ci; i++) for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {
        int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < n && xx >= 0 && xx < n) s += w[wo + ((o * ci + i) * 3 + dy + 1) * 3 + dx + 1] * in[i][yy][xx];
      }
      out[o][y][x] = Math.max(0, s);
    }
    return out;
  }

  /** The 8 x 8 interior of a [c][10][10] map (the crop). */
  static double[][][] interior(double[][][] a) {
    double[][][] out = new double[a.length][8][8];
    for (int c = 0; c < a.length; c++) for (int y = 0; y < 8; y++) for (int x = 0; x < 8; x++) out[c][y][x] = a[c][y + 1][x + 1];
    return out;
  }

  /**
   * Float backward pass against double central differences (eps 1e-6) of the reference, every
   * parameter of tensors up to {@code perTensor} elements, a random {@code perTensor} of larger
   * ones; tolerance |analytic - numeric| <= 1e-4 + 1e-4 |numeric|, as in DefaultPolicyTest.
   */
  static void gradCheck(ConvPolicy.Config cfg, int t, int b, int threads, int perTensor) {
    gradCheck(cfg, t, b, threads, perTensor, false, 1e-6);
  }

  /**
   * As above; {@code anyBytes} draws observation bytes in -3..3 (the general conv1 path) instead of
   * 0/1; {@code eps} is the central-difference step (smaller for big maps, where a step of 1e-6
   * moves some of the thousands of pre-activations a conv bias feeds across a ReLU kink).
   */
  static void gradCheck(ConvPolicy.Config cfg, int t, int b, int threads, int perTensor, boolean anyBytes, double eps) {
    var net = new ConvPolicy(cfg);
    Params p = net.params();
    Rng rng = new Rng(17 + cfg.hidden());
    float[] init = randomFloats(rng, p.size(), 0.3f);
    System.arraycopy(init, 0, p.data, 0, p.size());
    int rows = t * b, S = net.stateSize(), A = cfg.actions();
    byte[] obs = anyBytes ? anyBytes(rng, rows) : randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[(t / 2) * b + 1] = true;
    reset[0] = true;
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
    for (int i = 0; i < rows * A; i++) assertThat((double) logits[i]).isCloseTo(refLogits[i], Offset.offset(1e-4));
    for (int i = 0; i < rows; i++) assertThat((double) values[i]).isCloseTo(refValues[i], Offset.offset(1e-4));

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
        assertThat(err).as("param %d (%s): analytic %s numeric %s", i, DefaultPolicyTest.nameOf(p, i), p.grad[i], num).isLessThanOrEqualTo(1.0);
        checked++;
        if (Math.abs(num) > 1e-3) nonzero++;
      }
    }
    assertThat(nonzero).isGreaterThan(checked / 10);
  }

  @Test
  void gradientsOfEveryParameterMatchDoublePrecisionFiniteDifferences() {
    // C = 2, H = 4, L = 1: all 1,006 parameters; 3 x 2 rows (a reset inside a sequence).
    gradCheck(new ConvPolicy.Config(2, 4, 1, 5, 7), 3, 2, 1, Integer.MAX_VALUE);
  }

  @Test
  void gradientsMatchWithTwoLayersWiderMapsAndMoreRowsThanAChunk() {
    // C = 3 (odd), H = 20 (vector + scalar tail), L = 2, 33 rows (two im2col chunks), 2 threads.
    gradCheck(new ConvPolicy.Config(3, 20, 2, 5, 8), 3, 11, 2, 20);
  }

  @Test
  void gradientsMatchForVectorWideChannelCountsAndNonBinaryInputs() {
    // C = 8 (half an AVX-512 vector), 16 (one), 20 (one and a partial); 0/1 and -3..3 input bytes;
    // 50 rows: more than a backward block (48), so block partial sums are combined; odd row counts
    // (a row pair with an all-zero partner at the end).
    gradCheck(new ConvPolicy.Config(8, 6, 1, 5, 11), 2, 25, 2, 12, false, 1e-7);
    gradCheck(new ConvPolicy.Config(8, 4, 1, 5, 14), 1, 13, 1, 12, true, 1e-7);
    gradCheck(new ConvPolicy.Config(16, 4, 1, 5, 12), 2, 25, 1, 12, true, 1e-7);
    gradCheck(new ConvPolicy.Config(20, 4, 1, 5, 13), 2, 3, 2, 12, true, 1e-7);
  }

  @Test
  void gradientsMatchWithThreeAndFourConvolutions() {
    // convs = 3: C = 2, all parameters; convs = 4: C = 16 (one vector, the pair path off) and C = 5,
    // more rows than a backward block, two threads, non-binary inputs.
    gradCheck(new ConvPolicy.Config(2, 4, 1, 5, 7, 3), 3, 2, 1, Integer.MAX_VALUE);
    gradCheck(new ConvPolicy.Config(16, 4, 1, 5, 21, 4), 1, 13, 2, 8, true, 1e-7);
    gradCheck(new ConvPolicy.Config(5, 6, 2, 5, 22, 4), 3, 11, 2, 20);
    gradCheck(new ConvPolicy.Config(8, 6, 1, 5, 23, 3), 2, 25, 1, 12, false, 1e-7);
  }

  @Test
  void gradientsMatchOnTheCroppedInterior() {
    // crop: all parameters at C = 2 (two and three convolutions); C = 16 with four convolutions, two
    // threads, more rows than a backward block; C = 8 (the pair path is off with crop) on -3..3 bytes,
    // which put non-zero inputs on the outer ring (conv1's weight gradient gathers from the ring too).
    gradCheck(new ConvPolicy.Config(2, 4, 1, 5, 31, 2, true), 3, 2, 1, Integer.MAX_VALUE);
    gradCheck(new ConvPolicy.Config(2, 4, 2, 5, 32, 3, true), 3, 2, 2, Integer.MAX_VALUE);
    gradCheck(new ConvPolicy.Config(16, 6, 1, 5, 33, 4, true), 2, 25, 2, 10, false, 1e-7);
    gradCheck(new ConvPolicy.Config(8, 4, 1, 5, 34, 2, true), 1, 13, 1, 12, true, 1e-7);
  }

  @Test
  void cropHasTheDocumentedSizesAndRoundTrips(@TempDir Path tmp) throws Exception {
    var whole = new ConvPolicy.Config(16, 256, 2, 5, 1, 4);
    var crop = new ConvPolicy.Config(16, 256, 2, 5, 1, 4, true);
    // The projection reads 64 cells instead of 100; nothing else changes size.
    assertThat(new ConvPolicy(whole).params().size() - new ConvPolicy(crop).params().size()).isEqualTo(36 * 16 * 256);
    // 36*64*16 + 9*64*16^2*3 + 64*16*256 + 3*256^2*2 + 6*256 (whole board: 1,553,152).
    assertThat(crop.forwardMacs()).isEqualTo(1_136_128);
    assertThat(whole.forwardMacs()).isEqualTo(1_553_152);
    Path f = tmp.resolve("c.safetensors");
    var net = new ConvPolicy(new ConvPolicy.Config(3, 8, 1, 5, 4, 2, true));
    Policies.save(f, net, Map.of());
    PolicyNet back = Policies.load(f);
    assertThat(((ConvPolicy) back).config().crop()).isTrue();
    assertThat(back.params().data).containsExactly(net.params().data);
    assertThat(ConvPolicy.Config.fromJson("{\"channels\":3,\"hidden\":8,\"layers\":1,\"actions\":5,\"seed\":4,\"convs\":2}").crop()).isFalse();
  }

  static byte[] anyBytes(Rng rng, int rows) {
    byte[] obs = new byte[rows * O];
    for (int i = 0; i < obs.length; i++) obs[i] = (byte) (rng.nextFloat() < 0.3f ? rng.nextInt(7) - 3 : 0);
    return obs;
  }

  /**
   * The encoder (conv1, conv2, proj) against a straightforward scalar double-precision reference
   * (the direct convolution {@link #conv} over [channel][y][x]), for channel counts below, equal to
   * and above a vector, on one-hot-like 0/1 inputs (the table path of conv1) and on arbitrary bytes.
   */
  @Test
  void fastEncoderEqualsTheScalarReferenceConvolution() {
    Rng rng = new Rng(5);
    for (int c : new int[] {1, 3, 8, 16, 20, 33}) {
      for (boolean any : new boolean[] {false, true}) {
        var cfg = new ConvPolicy.Config(c, 12, 1, 5, c);
        var net = new ConvPolicy(cfg);
        Params p = net.params();
        float[] init = randomFloats(rng, p.size(), 0.5f);
        System.arraycopy(init, 0, p.data, 0, p.size());
        int rows = 7;
        byte[] obs = any ? anyBytes(rng, rows) : randomObs(rng, rows);
        float[][] got;
        try (Workers w = new Workers(2)) {
          net.setWorkers(w);
          got = net.encodeForTest(obs, rows);
        }
        double[] wd = new double[p.size()];
        for (int i = 0; i < wd.length; i++) wd[i] = p.data[i];
        int c1w = p.tensor("conv1.weight").offset(), c1b = p.tensor("conv1.bias").offset();
        int c2w = p.tensor("conv2.weight").offset(), c2b = p.tensor("conv2.bias").offset();
        int prw = p.tensor("proj.weight").offset(), prb = p.tensor("proj.bias").offset();
        int nonzero = 0;
        for (int r = 0; r < rows; r++) {
          double[][][] in = new double[4][10][10];
          for (int pl = 0; pl < 4; pl++) for (int y = 0; y < 10; y++) for (int x = 0; x < 10; x++) in[pl][y][x] = obs[r * O + pl * 100 + y * 10 + x];
          double[][][] a2 = conv(conv(in, wd, c1w, c1b, 4, c), wd, c2w, c2b, c, c);
          for (int cell = 0; cell < 100; cell++) for (int ch = 0; ch < c; ch++) {
            double want = a2[ch][cell / 10][cell % 10];
            if (want > 0) nonzero++;
            assertThat((double) got[0][(r * 100 + cell) * c + ch]).as("C=%d any=%s row %d cell %d ch %d", c, any, r, cell, ch)
                .isCloseTo(want, Offset.offset(1e-4 * (1 + Math.abs(want))));
          }
          for (int j = 0; j < 12; j++) {
            double s = wd[prb + j];
            for (int cell = 0; cell < 100; cell++) for (int ch = 0; ch < c; ch++) s += wd[prw + j * 100 * c + cell * c + ch] * a2[ch][cell / 10][cell % 10];
            double want = Math.max(0, s);
            assertThat((double) got[1][r * 12 + j]).isCloseTo(want, Offset.offset(1e-4 * (1 + Math.abs(want))));
          }
        }
        assertThat(nonzero).as("C=%d: a live feature map", c).isGreaterThan(rows * 100 * c / 50);
      }
    }
  }

  @Test
  void stepOverTStepsEqualsForwardOverTheSegment() {
    stepEqualsForward(new ConvPolicy.Config(4, 24, 2, 5, 9));
    stepEqualsForward(new ConvPolicy.Config(4, 24, 1, 5, 9, 4)); // the rollout's middle maps alternate between two buffers
    stepEqualsForward(new ConvPolicy.Config(16, 24, 1, 5, 9, 3, true));
  }

  private static void stepEqualsForward(ConvPolicy.Config cfg) {
    var net = new ConvPolicy(cfg);
    Rng rng = new Rng(21);
    float[] init = randomFloats(rng, net.params().size(), 0.3f);
    System.arraycopy(init, 0, net.params().data, 0, init.length);
    int t = 7, b = 5, rows = t * b, S = net.stateSize();
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
      for (int i = 0; i < b * 5; i++) assertThat(sl[i]).isCloseTo(logits[ti * b * 5 + i], Offset.offset(1e-5f));
      for (int i = 0; i < b; i++) assertThat(sv[i]).isCloseTo(values[ti * b + i], Offset.offset(1e-5f));
    }
  }

  @Test
  void resultsDoNotDependOnTheThreadCount() {
    var cfg = new ConvPolicy.Config(4, 32, 1, 5, 1);
    Rng rng = new Rng(3);
    int t = 4, b = 9, rows = t * b;
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[13] = true;
    float[] h0 = randomFloats(rng, b * 32, 1f), dL = randomFloats(rng, rows * 5, 1f), dV = randomFloats(rng, rows, 1f);
    float[][] out = new float[2][];
    for (int threads = 1; threads <= 2; threads++) {
      var net = new ConvPolicy(cfg);
      float[] logits = new float[rows * 5], values = new float[rows];
      try (Workers w = new Workers(threads)) {
        net.setWorkers(w);
        net.forward(obs, reset, h0, t, b, logits, values);
        net.backward(dL, dV);
      }
      float[] all = java.util.Arrays.copyOf(net.params().grad, net.params().size() + logits.length);
      System.arraycopy(logits, 0, all, net.params().size(), logits.length);
      out[threads - 1] = all;
    }
    assertThat(out[1]).containsExactly(out[0]);
  }

  @Test
  void backwardIsBitIdenticalAcrossThreadCountsWithManyBlocks() {
    // 8 x 20 = 160 rows: five backward blocks split unevenly between two workers; C = 16.
    backwardBitIdentical(new ConvPolicy.Config(16, 16, 1, 5, 2));
    backwardBitIdentical(new ConvPolicy.Config(16, 16, 1, 5, 2, 3));
    backwardBitIdentical(new ConvPolicy.Config(8, 16, 1, 5, 2, 4));
    backwardBitIdentical(new ConvPolicy.Config(16, 16, 1, 5, 2, 3, true));
  }

  private static void backwardBitIdentical(ConvPolicy.Config cfg) {
    Rng rng = new Rng(4);
    int t = 8, b = 20, rows = t * b;
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    float[] h0 = randomFloats(rng, b * 16, 1f), dL = randomFloats(rng, rows * 5, 1f), dV = randomFloats(rng, rows, 1f);
    float[][] out = new float[3][];
    for (int run = 0; run < 3; run++) {
      var net = new ConvPolicy(cfg);
      float[] logits = new float[rows * 5], values = new float[rows];
      try (Workers w = new Workers(run == 0 ? 1 : 2)) {
        net.setWorkers(w);
        net.forward(obs, reset, h0, t, b, logits, values);
        net.backward(dL, dV);
      }
      out[run] = net.params().grad.clone();
    }
    assertThat(out[1]).containsExactly(out[0]);
    assertThat(out[2]).containsExactly(out[0]);
  }

  @Test
  void defaultConfigHasTheDocumentedSizes() {
    var net = new ConvPolicy(ConvPolicy.Config.DEFAULT);
    assertThat(net.params().size()).isEqualTo(65_014);
    assertThat(net.stateSize()).isEqualTo(64);
    assertThat(ConvPolicy.Config.DEFAULT.forwardMacs()).isEqualTo(150_272);
  }

  @Test
  void savesAndLoadsThroughPoliciesWithItsConfig(@TempDir Path tmp) throws Exception {
    var cfg = new ConvPolicy.Config(3, 8, 1, 5, 4);
    var net = new ConvPolicy(cfg);
    Path f = tmp.resolve("p.safetensors");
    Policies.save(f, net, Map.of());
    PolicyNet back = Policies.load(f);
    assertThat(back).isInstanceOf(ConvPolicy.class);
    assertThat(((ConvPolicy) back).config()).isEqualTo(cfg);
    assertThat(back.params().data).containsExactly(net.params().data);
    assertThat(ConvPolicy.Config.fromJson(cfg.toJson())).isEqualTo(cfg);
    // Checkpoints written before the convs field read as two convolutions; deeper ones round-trip.
    assertThat(ConvPolicy.Config.fromJson("{\"channels\":3,\"hidden\":8,\"layers\":1,\"actions\":5,\"seed\":4}")).isEqualTo(cfg);
    var deep = new ConvPolicy(new ConvPolicy.Config(3, 8, 1, 5, 4, 3));
    Policies.save(f, deep, Map.of());
    PolicyNet deepBack = Policies.load(f);
    assertThat(((ConvPolicy) deepBack).config().convs()).isEqualTo(3);
    assertThat(deepBack.params().data).containsExactly(deep.params().data);
    assertThat(deep.params().tensor("conv3.weight").size()).isEqualTo(81);
    assertThat(deep.params().size()).isEqualTo(net.params().size() + 81 + 3);
    assertThatThrownBy(() -> new ConvPolicy.Config(3, 8, 1, 5, 4, 9)).isInstanceOf(UserError.class).hasMessageContaining("convs must be in 2..8");
    assertThatThrownBy(() -> ConvPolicy.Config.fromJson("{\"channels\":0,\"hidden\":4,\"layers\":1,\"actions\":5,\"seed\":1}"))
        .isInstanceOf(UserError.class).hasMessageContaining("channels");
  }
}
