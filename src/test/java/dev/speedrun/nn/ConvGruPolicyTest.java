package dev.speedrun.nn;

import static dev.speedrun.nn.DefaultPolicyTest.randomFloats;
import static dev.speedrun.nn.DefaultPolicyTest.randomObs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.Rng;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class ConvGruPolicyTest {
  static final int O = 400, P = 100, NP = 64;

  /** 3x3 convolution with zero padding in double on an S x S grid: in [ci][S*S] -> out [co][S*S], weight [co][ci][3][3] at wo, bias at bo. */
  static double[][] conv(double[][] in, double[] w, int wo, int bo, int ci, int co, int S) {
    double[][] out = new double[co][S * S];
    for (int o = 0; o < co; o++) {
      for (int y = 0; y < S; y++) {
        for (int x = 0; x < S; x++) {
          double s = w[bo + o];
          for (int i = 0; i < ci; i++) {
            for (int dy = -1; dy <= 1; dy++) {
              for (int dx = -1; dx <= 1; dx++) {
                int yy = y + dy, xx = x + dx;
                if (yy < 0 || yy >= S || xx < 0 || xx >= S) continue;
                s += w[wo + ((o * ci + i) * 3 + dy + 1) * 3 + dx + 1] * in[i][yy * S + xx];
              }
            }
          }
          out[o][y * S + x] = s;
        }
      }
    }
    return out;
  }

  /** Depthwise 3x3, zero padding, no bias, in double on the 8 x 8 grid: in [K][64], weight [K][1][3][3] at wo. */
  static double[][] depthwise(double[][] in, double[] w, int wo, int K) {
    double[][] out = new double[K][NP];
    for (int k = 0; k < K; k++) {
      for (int y = 0; y < 8; y++) {
        for (int x = 0; x < 8; x++) {
          double s = 0;
          for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
              int yy = y + dy, xx = x + dx;
              if (yy >= 0 && yy < 8 && xx >= 0 && xx < 8) s += w[wo + k * 9 + (dy + 1) * 3 + dx + 1] * in[k][yy * 8 + xx];
            }
          }
          out[k][y * 8 + x] = s;
        }
      }
    }
    return out;
  }

  /** 1x1 convolution in double: in [ci][64] -> out [co][64], weight [co][ci][1][1] at wo, bias at bo. */
  static double[][] pointwise(double[][] in, double[] w, int wo, int bo, int ci, int co) {
    double[][] out = new double[co][NP];
    for (int o = 0; o < co; o++) {
      for (int q = 0; q < NP; q++) {
        double s = w[bo + o];
        for (int i = 0; i < ci; i++) s += w[wo + o * ci + i] * in[i][q];
        out[o][q] = s;
      }
    }
    return out;
  }

  static double sig(double v) { return 1 / (1 + Math.exp(-v)); }

  /** The policy again in double precision, from the formulas in its comment; returns sum(cL*logits) + sum(cV*values). */
  static double referenceLoss(ConvGruPolicy.Config c, Params p, double[] w, byte[] obs, boolean[] reset, float[] h0, int t, int b,
      float[] cL, float[] cV, double[] logitsOut, double[] valuesOut) {
    int C = c.channels(), K = c.state(), H = c.hidden(), A = c.actions();
    int eW = p.tensor("enc.weight").offset(), eB = p.tensor("enc.bias").offset();
    int gIW = p.tensor("cgru.weight_ih").offset(), gHW = p.tensor("cgru.weight_hh").offset();
    int gIB = p.tensor("cgru.bias_ih").offset(), gHB = p.tensor("cgru.bias_hh").offset();
    int hW = p.tensor("head.weight").offset(), hB = p.tensor("head.bias").offset();
    int pW = p.tensor("policy.weight").offset(), pB = p.tensor("policy.bias").offset();
    int vW = p.tensor("value.weight").offset(), vB = p.tensor("value.bias").offset();
    double loss = 0;
    for (int bi = 0; bi < b; bi++) {
      double[][] h = new double[K][NP]; // channels-first here; the policy's states are cell-major (p*K + k)
      for (int k = 0; k < K; k++) for (int q = 0; q < NP; q++) h[k][q] = h0[bi * K * NP + q * K + k];
      for (int s = 0; s < t; s++) {
        int r = s * b + bi;
        if (reset[r]) h = new double[K][NP];
        double[][] x = new double[4][P];
        for (int pl = 0; pl < 4; pl++) for (int q = 0; q < P; q++) x[pl][q] = obs[r * O + pl * P + q];
        double[][] board = conv(x, w, eW, eB, 4, C, 10); // the whole board's convolution, then its 8 x 8 interior
        double[][] e = new double[C][NP];
        for (int ch = 0; ch < C; ch++) for (int q = 0; q < NP; q++) e[ch][q] = Math.max(0, board[ch][(q / 8 + 1) * 10 + q % 8 + 1]);
        for (int tick = 0; tick < c.ticks(); tick++) {
          double[][] gi = c.separableInput() ? pointwise(depthwise(e, w, p.tensor("cgru.depthwise_ih").offset(), C), w, gIW, gIB, C, 3 * K)
              : conv(e, w, gIW, gIB, C, 3 * K, 8);
          double[][] gh = c.separable() ? pointwise(depthwise(h, w, p.tensor("cgru.depthwise_hh").offset(), K), w, gHW, gHB, K, 3 * K)
              : conv(h, w, gHW, gHB, K, 3 * K, 8);
          if (c.pool()) { // gi += weight_pool . [mean over cells of h, max over cells of h], at every cell
            int wP = p.tensor("cgru.weight_pool").offset();
            double[] u = new double[2 * K];
            for (int k = 0; k < K; k++) {
              double sum = 0, max = Double.NEGATIVE_INFINITY;
              for (int q = 0; q < NP; q++) {
                sum += h[k][q];
                max = Math.max(max, h[k][q]);
              }
              u[k] = sum / NP;
              u[K + k] = max;
            }
            for (int g = 0; g < 3 * K; g++) {
              double inj = 0;
              for (int j = 0; j < 2 * K; j++) inj += w[wP + g * 2 * K + j] * u[j];
              for (int q = 0; q < NP; q++) gi[g][q] += inj;
            }
          }
          double[][] hn = new double[K][NP];
          for (int k = 0; k < K; k++) {
            for (int q = 0; q < NP; q++) {
              double rr = sig(gi[k][q] + gh[k][q]), z = sig(gi[K + k][q] + gh[K + k][q]);
              double m = Math.tanh(gi[2 * K + k][q] + rr * gh[2 * K + k][q]);
              hn[k][q] = (1 - z) * m + z * h[k][q];
            }
          }
          h = hn;
        }
        double[] y = new double[H];
        for (int j = 0; j < H; j++) {
          double v = w[hB + j];
          for (int k = 0; k < K; k++) for (int q = 0; q < NP; q++) v += w[hW + j * K * NP + q * K + k] * h[k][q];
          y[j] = Math.max(0, v);
        }
        for (int a = 0; a < A; a++) {
          double l = w[pB + a];
          for (int j = 0; j < H; j++) l += w[pW + a * H + j] * y[j];
          loss += cL[r * A + a] * l;
          if (logitsOut != null) logitsOut[r * A + a] = l;
        }
        double v = w[vB];
        for (int j = 0; j < H; j++) v += w[vW + j] * y[j];
        loss += cV[r] * v;
        if (valuesOut != null) valuesOut[r] = v;
      }
    }
    return loss;
  }

  /**
   * Channel counts below one vector (pad lanes everywhere), and above eight (the weight gradient's
   * eight-channel blocks) and one vector (the gates' second vector), and a state of exactly one AVX-512
   * vector (16); one tick per step, two and three; the full hidden convolution and the separable one;
   * with and without pool-and-inject (scalar and vector gate paths).
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"3, 2, 6, 4, 3, 1, false, false, false", "9, 17, 5, 3, 2, 1, false, false, false",
      "3, 2, 6, 4, 3, 3, false, false, false", "9, 17, 5, 3, 2, 2, false, false, false", "4, 16, 5, 3, 2, 3, false, false, false",
      "3, 2, 6, 4, 3, 1, true, false, false", "9, 17, 5, 3, 2, 2, true, false, false", "4, 16, 5, 3, 2, 3, true, false, false",
      "3, 2, 6, 4, 3, 2, false, true, false", "17, 5, 5, 3, 2, 1, true, true, false", "16, 16, 5, 3, 2, 3, true, true, false",
      "3, 2, 6, 4, 3, 3, false, false, true", "4, 16, 5, 3, 2, 3, false, false, true", "9, 17, 5, 3, 2, 1, true, true, true"})
  void forwardAndGradientsOfEveryTensorMatchADoublePrecisionReference(int channels, int state, int hidden, int t, int b, int ticks,
      boolean separable, boolean separableInput, boolean pool) {
    var cfg = new ConvGruPolicy.Config(channels, state, hidden, 5, 4, ticks, separable, separableInput, pool);
    var net = new ConvGruPolicy(cfg);
    Params p = net.params();
    Rng rng = new Rng(23);
    float[] init = randomFloats(rng, p.size(), 0.3f);
    System.arraycopy(init, 0, p.data, 0, p.size());
    int rows = t * b, A = 5;
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[2 * b + 1] = true; // an episode begins mid-segment for sequence 1
    float[] h0 = randomFloats(rng, b * net.stateSize(), 1f);
    float[] cL = randomFloats(rng, rows * A, 1f), cV = randomFloats(rng, rows, 1f);
    float[] logits = new float[rows * A], values = new float[rows];
    net.forward(obs, reset, h0, t, b, logits, values);
    p.zeroGrad();
    net.backward(cL, cV);
    double[] wd = new double[p.size()];
    for (int i = 0; i < wd.length; i++) wd[i] = p.data[i];
    double[] refL = new double[rows * A], refV = new double[rows];
    referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, refL, refV);
    for (int i = 0; i < rows * A; i++) assertThat((double) logits[i]).isCloseTo(refL[i], Offset.offset(1e-4));
    for (int i = 0; i < rows; i++) assertThat((double) values[i]).isCloseTo(refV[i], Offset.offset(1e-4));
    int checked = 0, nonzero = 0;
    double eps = 1e-6;
    for (Params.Tensor ts : p.tensors()) {
      for (int e = 0; e < Math.min(ts.size(), 40); e++) {
        int i = ts.offset() + (ts.size() <= 40 ? e : rng.nextInt(ts.size()));
        double keep = wd[i];
        wd[i] = keep + eps;
        double fp = referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, null, null);
        wd[i] = keep - eps;
        double fm = referenceLoss(cfg, p, wd, obs, reset, h0, t, b, cL, cV, null, null);
        wd[i] = keep;
        double num = (fp - fm) / (2 * eps);
        double err = Math.abs(p.grad[i] - num) / (1e-4 + 1e-4 * Math.abs(num));
        assertThat(err).as("param %d (%s): analytic %s numeric %s", i, DefaultPolicyTest.nameOf(p, i), p.grad[i], num)
            .isLessThanOrEqualTo(1.0);
        checked++;
        if (Math.abs(num) > 1e-3) nonzero++;
      }
    }
    assertThat(nonzero).isGreaterThan(checked / 10);
  }

  /** The rollout's step, T times with the same resets, gives the training forward's outputs. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"1, false, false, false", "3, false, false, false", "3, true, false, false",
      "2, true, true, false", "3, false, false, true"})
  void stepOverTStepsEqualsForwardOverTheSegment(int ticks, boolean separable, boolean separableInput, boolean pool) {
    var net = new ConvGruPolicy(new ConvGruPolicy.Config(4, 3, 8, 5, 9, ticks, separable, separableInput, pool));
    Rng rng = new Rng(21);
    int t = 5, b = 4, rows = t * b, St = net.stateSize();
    byte[] obs = randomObs(rng, rows);
    boolean[] reset = new boolean[rows];
    reset[3 * b + 2] = true;
    reset[b] = true;
    float[] h0 = randomFloats(rng, b * St, 1f);
    float[] logits = new float[rows * 5], values = new float[rows];
    net.forward(obs, reset, h0, t, b, logits, values);
    float[] state = h0.clone(), sl = new float[b * 5], sv = new float[b];
    byte[] one = new byte[b * O];
    for (int ti = 0; ti < t; ti++) {
      for (int bi = 0; bi < b; bi++) if (reset[ti * b + bi]) java.util.Arrays.fill(state, bi * St, (bi + 1) * St, 0f);
      System.arraycopy(obs, ti * b * O, one, 0, b * O);
      net.step(one, b, state, sl, sv);
      for (int i = 0; i < b * 5; i++) assertThat(sl[i]).isEqualTo(logits[ti * b * 5 + i]);
      for (int i = 0; i < b; i++) assertThat(sv[i]).isEqualTo(values[ti * b + i]);
    }
  }

  @Test
  void savesAndLoadsThroughPoliciesWithItsConfig(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
    var net = new ConvGruPolicy(new ConvGruPolicy.Config(4, 3, 8, 5, 11, 2, true, true));
    java.nio.file.Path f = tmp.resolve("p.safetensors");
    Policies.save(f, net, java.util.Map.of());
    PolicyNet back = Policies.load(f);
    assertThat(back).isInstanceOf(ConvGruPolicy.class);
    assertThat(((ConvGruPolicy) back).config()).isEqualTo(net.config());
    assertThat(back.params().data).isEqualTo(net.params().data);
  }

  /** The warm-up trains a throwaway policy: a policy made before it computes the same bits after it. */
  @Test
  void warmUpLeavesOtherPoliciesAlone() {
    var cfg = new ConvGruPolicy.Config(4, 4, 16, 5, 3, 2, false, true);
    var net = new ConvGruPolicy(cfg);
    byte[] obs = new byte[2 * ConvGruPolicy.OBS];
    for (int i = 0; i < obs.length; i += 5) obs[i] = 1;
    float[] state = new float[2 * net.stateSize()], logits = new float[10], values = new float[2];
    net.step(obs, 2, state.clone(), logits, values);
    float[] before = logits.clone(), params = net.params().data.clone();
    assertThat(ConvGruPolicy.warmUp(cfg, 3)).isPositive();
    net.step(obs, 2, state.clone(), logits, values);
    assertThat(logits).containsExactly(before);
    assertThat(net.params().data).containsExactly(params);
    assertThat(net.params().grad).containsOnly(0f);
  }

  @Test
  void sizesAreTheDocumentedOnes() {
    var cfg = new ConvGruPolicy.Config(16, 16, 128, 5, 1);
    var net = new ConvGruPolicy(cfg);
    int C = 16, K = 16, H = 128, A = 5;
    assertThat(net.params().size()).isEqualTo(36 * C + C + 3 * K * (9 * C + 9 * K + 2) + (K * 64 + 1) * H + (A + 1) * (H + 1));
    assertThat(net.stateSize()).isEqualTo(K * 64);
    assertThat(cfg.forwardMacs()).isEqualTo(2304.0 * C + 1728.0 * K * (C + K) + 64.0 * K * H + (A + 1) * H);
    var three = new ConvGruPolicy.Config(16, 16, 128, 5, 1, 3);
    assertThat(new ConvGruPolicy(three).params().size()).isEqualTo(net.params().size());
    assertThat(three.forwardMacs()).isEqualTo(2304.0 * C + 1728.0 * K * (C + 3 * K) + 64.0 * K * H + (A + 1) * H);
    var sep = new ConvGruPolicy.Config(16, 16, 128, 5, 1, 3, true);
    assertThat(new ConvGruPolicy(sep).params().size())
        .isEqualTo(36 * C + C + 3 * K * (9 * C + K + 2) + 9 * K + (K * 64 + 1) * H + (A + 1) * (H + 1));
    assertThat(sep.forwardMacs()).isEqualTo(2304.0 * C + 1728.0 * K * C + 3 * 64.0 * (9 * K + 3 * K * K) + 64.0 * K * H + (A + 1) * H);
    var both = new ConvGruPolicy.Config(16, 16, 128, 5, 1, 3, true, true);
    assertThat(new ConvGruPolicy(both).params().size())
        .isEqualTo(36 * C + C + 3 * K * (C + K + 2) + 9 * K + 9 * C + (K * 64 + 1) * H + (A + 1) * (H + 1));
    assertThat(both.forwardMacs()).isEqualTo(2304.0 * C + 64.0 * (9 * C + 3 * K * C) + 3 * 64.0 * (9 * K + 3 * K * K) + 64.0 * K * H + (A + 1) * H);
    var pooled = new ConvGruPolicy.Config(16, 16, 128, 5, 1, 3, false, false, true);
    assertThat(new ConvGruPolicy(pooled).params().size()).isEqualTo(net.params().size() + 3 * K * 2 * K);
    assertThat(pooled.forwardMacs()).isEqualTo(three.forwardMacs() + 3 * 6.0 * K * K);
  }

  /** A config written before ticks existed (no such key) reads as one tick. */
  @Test
  void configsWithoutTicksReadAsOneTick() {
    var c = ConvGruPolicy.Config.fromJson("{\"channels\":4,\"state\":3,\"hidden\":8,\"actions\":5,\"seed\":11}");
    assertThat(c).isEqualTo(new ConvGruPolicy.Config(4, 3, 8, 5, 11, 1));
  }

  /**
   * Pool-and-inject adds a tensor and leaves the others as they were: the same seed gives the same
   * initial values for every tensor the two policies share, and with weight_pool zeroed the same outputs.
   */
  @Test
  void poolAddsOneTensorAndStartsTheOthersAsWithoutIt() {
    var plain = new ConvGruPolicy(new ConvGruPolicy.Config(4, 3, 8, 5, 13, 3, false, false, false));
    var pooled = new ConvGruPolicy(new ConvGruPolicy.Config(4, 3, 8, 5, 13, 3, false, false, true));
    for (Params.Tensor t : plain.params().tensors()) {
      Params.Tensor u = pooled.params().tensor(t.name());
      float[] a = java.util.Arrays.copyOfRange(plain.params().data, t.offset(), t.offset() + t.size());
      float[] b = java.util.Arrays.copyOfRange(pooled.params().data, u.offset(), u.offset() + u.size());
      assertThat(b).as(t.name()).containsExactly(a);
    }
    Params.Tensor wp = pooled.params().tensor("cgru.weight_pool");
    assertThat(wp.size()).isEqualTo(3 * 3 * 2 * 3);
    java.util.Arrays.fill(pooled.params().data, wp.offset(), wp.offset() + wp.size(), 0f);
    Rng rng = new Rng(5);
    byte[] obs = randomObs(rng, 3);
    float[] h = randomFloats(rng, 3 * plain.stateSize(), 1f), h2 = h.clone();
    float[] l1 = new float[15], v1 = new float[3], l2 = new float[15], v2 = new float[3];
    plain.step(obs, 3, h, l1, v1);
    pooled.step(obs, 3, h2, l2, v2);
    assertThat(l2).containsExactly(l1);
    assertThat(h2).containsExactly(h);
  }
}
