package dev.speedrun.nn;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.util.Arrays;

/**
 * A recurrent actor-critic with spatial weight sharing: two 3x3 convolutions over the 4 x 10 x 10
 * observation planes, a projection of the flattened feature map to width H, then the recurrent core
 * and heads of {@link DefaultPolicy} (its minGRU layers, policy and value heads, shared code).
 *
 * <pre>
 * Legend: R = T*B rows (time-major); P = 100 cells (10 x 10); C channels; H width; L minGRU layers.
 *
 *   conv1   a1[R][P][C] = relu(conv3x3(obs planes, conv1.weight [C][4][3][3]) + conv1.bias)
 *   conv2   a2[R][P][C] = relu(conv3x3(a1, conv2.weight [C][C][3][3]) + conv2.bias)
 *           (stride 1, zero padding 1: outside the board counts as "no wall", as in PyTorch's
 *            padding=1; Boxoban boards have their own wall border)
 *   proj    x0[R][H]    = relu(a2 flattened cell-major (index p*C + c) . proj.weight^T + proj.bias)
 *                         proj.weight [H][P*C]
 *   core    DefaultPolicy's minGRU layers and heads on x0 (tensors rnn.l.*, policy.*, value.*)
 * </pre>
 *
 * <p>Feature maps are kept channels-last ([cell][channel]) so that each convolution is im2col
 * (rows of 9*Ci inputs per cell, built for a chunk of {@value #CHUNK} rows at a time, never for the
 * whole batch) followed by one {@link Kernels} matrix product; the backward pass rebuilds the
 * columns per chunk. The weights keep PyTorch's Conv2d layout, so a column's index is ci*9 + k.
 *
 * <p>Size (A = 5): parameters 36C + C + 9C^2 + C + 100 C H + H + core (L (3H^2 + 3H) + 6(H+1)).
 * The default (C = 8, H = 64, L = 1) has 296 + 584 + 51,264 + 12,480 + 390 = 65,014 parameters.
 * Multiply-adds per forward step and environment: 3,600 C (conv1) + 900 C^2 (conv2) + 100 C H (proj)
 * + 3 H^2 L (minGRU) + 6 H (heads): 28,800 + 57,600 + 51,200 + 12,288 + 384 = 150,272 for the
 * default (the pinned DefaultPolicy: about 107k), plus about 2,000 C + 20 H L elementwise operations.
 *
 * <p>The encoder runs on the calling thread (results do not depend on the thread count); the core
 * splits its work over {@link #setWorkers workers} as in DefaultPolicy. Not thread-safe.
 */
public final class ConvPolicy implements PolicyNet {
  public static final int OBS = 400, P = 100, SIDE = 10, PLANES = 4;
  static final int CHUNK = 32; // rows per im2col chunk: 3,200 cells x 9C floats of scratch

  /**
   * Architecture and initialisation of a {@link ConvPolicy}; stored in checkpoints as JSON.
   *
   * @param channels C, channels of both convolutions (default 8)
   * @param hidden H, width of the projection and the minGRU layers (default 64)
   * @param layers L, number of minGRU layers (default 1)
   * @param actions A, logits of the policy head (5 for Boxoban)
   * @param seed seed of the deterministic parameter initialisation
   */
  public record Config(int channels, int hidden, int layers, int actions, long seed) {
    public static final Config DEFAULT = new Config(8, 64, 1, 5, 1);

    public Config {
      if (channels < 1 || channels > 256) throw new UserError("conv policy config: channels must be in 1..256, got " + channels);
      if (hidden < 1 || hidden > 65536) throw new UserError("conv policy config: hidden must be in 1..65536, got " + hidden);
      if (layers < 0 || layers > 64) throw new UserError("conv policy config: layers must be in 0..64, got " + layers);
      if (actions < 1 || actions > 1024) throw new UserError("conv policy config: actions must be in 1..1024, got " + actions);
    }

    public String toJson() {
      return ConfigJson.write(this);
    }

    public static Config fromJson(String json) {
      return ConfigJson.read(json, Config.class, "conv policy config");
    }

    /** Multiply-adds of one forward step for one environment (matrix products only). */
    public double forwardMacs() {
      double c = channels, h = hidden;
      return 36 * P * c + 9 * P * c * c + P * c * h + 3 * h * h * layers + (actions + 1) * h;
    }
  }

  /** Encoder activations for up to {@code cap} rows. */
  private static final class Acts {
    int cap;
    float[] a1, a2, x0; // [R][P][C], [R][P][C], [R][H]

    void ensure(int rows, int c, int h) {
      if (rows > cap) {
        cap = rows;
        a1 = new float[rows * P * c];
        a2 = new float[rows * P * c];
        x0 = new float[rows * h];
      }
    }
  }

  /** Neighbour k (0..8, row-major 3x3) of cell p, or -1 outside the board. */
  private static final int[] NEIGHBOUR = new int[P * 9];

  static {
    for (int p = 0; p < P; p++) {
      for (int k = 0; k < 9; k++) {
        int y = p / SIDE + k / 3 - 1, x = p % SIDE + k % 3 - 1;
        NEIGHBOUR[p * 9 + k] = y < 0 || y >= SIDE || x < 0 || x >= SIDE ? -1 : y * SIDE + x;
      }
    }
  }

  private final Config cfg;
  private final int C, H;
  private final Params params = new Params();
  private final Params.Tensor c1W, c1B, c2W, c2B, pW, pB;
  private final DefaultPolicy core;
  private final Acts roll = new Acts(), train = new Acts();
  private float[] cols = new float[0]; // im2col scratch [CHUNK*P][9*max(4, C)]
  private float[] da = new float[0], db = new float[0]; // backward scratch [R][P*C]
  private byte[] trainObs = new byte[0];
  private int trainRows;
  private boolean haveForward;

  public ConvPolicy(Config cfg) {
    this.cfg = cfg;
    C = cfg.channels();
    H = cfg.hidden();
    c1W = params.add("conv1.weight", C, PLANES, 3, 3);
    c1B = params.add("conv1.bias", C);
    c2W = params.add("conv2.weight", C, C, 3, 3);
    c2B = params.add("conv2.bias", C);
    pW = params.add("proj.weight", H, P * C);
    pB = params.add("proj.bias", H);
    core = new DefaultPolicy(new DefaultPolicy.Config(H, cfg.layers(), cfg.actions(), cfg.seed()), params, false);
    cols = new float[CHUNK * P * 9 * Math.max(PLANES, C)];
    Rng rng = new Rng(Rng.mix(cfg.seed(), 0xC0471L, 0));
    // He-uniform for the ReLU layers (variance 2/fan_in), biases zero.
    uniform(rng, c1W, (float) Math.sqrt(6.0 / (PLANES * 9)));
    uniform(rng, c2W, (float) Math.sqrt(6.0 / (C * 9)));
    uniform(rng, pW, (float) Math.sqrt(6.0 / (P * C)));
  }

  private void uniform(Rng rng, Params.Tensor t, float bound) {
    for (int i = 0; i < t.size(); i++) params.data[t.offset() + i] = (2 * rng.nextFloat() - 1) * bound;
  }

  public Config config() { return cfg; }

  @Override public int numActions() { return cfg.actions(); }
  @Override public int stateSize() { return core.stateSize(); }
  @Override public Params params() { return params; }

  /** Splits the core's work over {@code workers}; the encoder stays on the calling thread. */
  public void setWorkers(Workers workers) {
    core.setWorkers(workers);
  }

  /** As {@link DefaultPolicy#warmUp}: compiles the hot paths on a throwaway policy; returns seconds. */
  public static double warmUp(Config cfg, Workers workers, int iterations) {
    long t0 = System.nanoTime();
    ConvPolicy net = new ConvPolicy(cfg);
    net.setWorkers(workers);
    int t = 2, b = 4, rows = t * b, a = cfg.actions(), s = net.stateSize();
    byte[] obs = new byte[rows * OBS];
    for (int i = 0; i < obs.length; i += 7) obs[i] = 1;
    boolean[] reset = new boolean[rows];
    float[] h0 = new float[b * s], logits = new float[rows * a], values = new float[rows];
    float[] dl = new float[rows * a], dv = new float[rows], state = new float[b * s];
    Arrays.fill(dl, 1e-3f);
    Arrays.fill(dv, 1e-3f);
    for (int i = 0; i < iterations; i++) {
      net.forward(obs, reset, h0, t, b, logits, values);
      net.backward(dl, dv);
      net.step(obs, b, state, logits, values);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    roll.ensure(n, C, H);
    encode(roll, obs, n);
    core.stepFrom(roll.x0, n, state, logits, values);
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    int rows = t * b;
    train.ensure(rows, C, H);
    if (trainObs.length < rows * OBS) trainObs = new byte[rows * OBS];
    System.arraycopy(obs, 0, trainObs, 0, rows * OBS); // the backward pass rebuilds conv1's columns
    encode(train, obs, rows);
    core.forwardFrom(train.x0, resetBefore, h0, t, b, logits, values);
    trainRows = rows;
    haveForward = true;
  }

  /** obs [R][4][P] -> a1, a2, x0 of {@code s}. */
  private void encode(Acts s, byte[] obs, int rows) {
    float[] w = params.data;
    int k1 = PLANES * 9, k2 = C * 9;
    for (int r0 = 0; r0 < rows; r0 += CHUNK) {
      int n = Math.min(CHUNK, rows - r0), cells = n * P;
      im2colObs(obs, r0, n);
      int o = r0 * P * C;
      for (int q = 0; q < cells; q++) System.arraycopy(w, c1B.offset(), s.a1, o + q * C, C);
      Kernels.abt(cols, 0, w, c1W.offset(), s.a1, o, cells, C, k1, true);
      relu(s.a1, o, cells * C);
      im2col(s.a1, r0, n);
      for (int q = 0; q < cells; q++) System.arraycopy(w, c2B.offset(), s.a2, o + q * C, C);
      Kernels.abt(cols, 0, w, c2W.offset(), s.a2, o, cells, C, k2, true);
      relu(s.a2, o, cells * C);
    }
    for (int r = 0; r < rows; r++) System.arraycopy(w, pB.offset(), s.x0, r * H, H);
    Kernels.abt(s.a2, 0, w, pW.offset(), s.x0, 0, rows, H, P * C, true);
    relu(s.x0, 0, rows * H);
  }

  private static void relu(float[] v, int off, int n) {
    for (int i = off; i < off + n; i++) v[i] = Math.max(v[i], 0f);
  }

  /** cols[q][ci*9 + k] = obs plane ci at neighbour k of cell q, for rows [r0, r0 + n). */
  private void im2colObs(byte[] obs, int r0, int n) {
    int k1 = PLANES * 9;
    for (int r = 0; r < n; r++) {
      int ob = (r0 + r) * OBS;
      for (int p = 0; p < P; p++) {
        int co = (r * P + p) * k1;
        for (int ci = 0; ci < PLANES; ci++) {
          for (int k = 0; k < 9; k++) {
            int nb = NEIGHBOUR[p * 9 + k];
            cols[co + ci * 9 + k] = nb < 0 ? 0f : obs[ob + ci * P + nb];
          }
        }
      }
    }
  }

  /** cols[q][ci*9 + k] = x[row][neighbour k of cell q][ci] (channels-last x), rows [r0, r0 + n). */
  private void im2col(float[] x, int r0, int n) {
    int k2 = C * 9;
    for (int r = 0; r < n; r++) {
      int xb = (r0 + r) * P * C;
      for (int p = 0; p < P; p++) {
        int co = (r * P + p) * k2;
        for (int k = 0; k < 9; k++) {
          int nb = NEIGHBOUR[p * 9 + k];
          if (nb < 0) {
            for (int ci = 0; ci < C; ci++) cols[co + ci * 9 + k] = 0f;
          } else {
            for (int ci = 0; ci < C; ci++) cols[co + ci * 9 + k] = x[xb + nb * C + ci];
          }
        }
      }
    }
  }

  /** dx[row][neighbour k of q][ci] += cols[q][ci*9 + k] (the adjoint of {@link #im2col}). */
  private void col2im(float[] dx, int r0, int n) {
    int k2 = C * 9;
    for (int r = 0; r < n; r++) {
      int xb = (r0 + r) * P * C;
      for (int p = 0; p < P; p++) {
        int co = (r * P + p) * k2;
        for (int k = 0; k < 9; k++) {
          int nb = NEIGHBOUR[p * 9 + k];
          if (nb < 0) continue;
          for (int ci = 0; ci < C; ci++) dx[xb + nb * C + ci] += cols[co + ci * 9 + k];
        }
      }
    }
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    if (!haveForward) throw new IllegalStateException("backward without forward");
    core.backward(dLogits, dValues);
    Acts s = train;
    int rows = trainRows, pc = P * C, k1 = PLANES * 9, k2 = C * 9;
    float[] w = params.data, g = params.grad;
    if (da.length < rows * pc) {
      da = new float[rows * pc];
      db = new float[rows * pc];
    }
    // proj: through x0's ReLU (in place in the core's scratch, which it no longer needs).
    float[] dx0 = core.inputGrad();
    for (int i = 0; i < rows * H; i++) if (s.x0[i] <= 0f) dx0[i] = 0f;
    Kernels.atb(dx0, 0, s.a2, 0, g, pW.offset(), H, pc, rows, true);
    colSum(dx0, rows, H, g, pB.offset());
    Kernels.ab(dx0, 0, w, pW.offset(), da, 0, rows, pc, H, false);
    // conv2: da = dLoss/da2 -> dz2 (ReLU), weight gradients, db = dLoss/da1.
    for (int i = 0; i < rows * pc; i++) if (s.a2[i] <= 0f) da[i] = 0f;
    Arrays.fill(db, 0, rows * pc, 0f);
    for (int r0 = 0; r0 < rows; r0 += CHUNK) {
      int n = Math.min(CHUNK, rows - r0), cells = n * P, o = r0 * pc;
      im2col(s.a1, r0, n);
      Kernels.atb(da, o, cols, 0, g, c2W.offset(), C, k2, cells, true);
      Kernels.ab(da, o, w, c2W.offset(), cols, 0, cells, k2, C, false);
      col2im(db, r0, n);
    }
    colSum(da, rows * P, C, g, c2B.offset());
    // conv1: through a1's ReLU, weight gradients only (the input is the observation).
    for (int i = 0; i < rows * pc; i++) if (s.a1[i] <= 0f) db[i] = 0f;
    for (int r0 = 0; r0 < rows; r0 += CHUNK) {
      int n = Math.min(CHUNK, rows - r0), cells = n * P;
      im2colObs(trainObs, r0, n);
      Kernels.atb(db, r0 * pc, cols, 0, g, c1W.offset(), C, k1, cells, true);
    }
    colSum(db, rows * P, C, g, c1B.offset());
  }


  private static void colSum(float[] src, int rows, int cols, float[] dst, int off) {
    for (int j = 0; j < cols; j++) {
      float acc = 0f;
      for (int r = 0; r < rows; r++) acc += src[r * cols + j];
      dst[off + j] += acc;
    }
  }
}
