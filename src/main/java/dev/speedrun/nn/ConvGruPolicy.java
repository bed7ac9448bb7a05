package dev.speedrun.nn;

import dev.speedrun.env.Rng;

/**
 * A convolutional recurrent actor-critic (the conv-recurrent candidate of docs/experiments.md):
 * its recurrent state is a feature map, so each step's update of a cell sees its neighbours', as in
 * the DRC agents that learn Sokoban well (Guez et al. 2019), here with one convolutional GRU and one
 * tick per step. A reference implementation built from {@link Layers}' checked forward/backward
 * pairs, plain loops, one thread: for correctness and small experiments, not yet for speed.
 *
 * <pre>
 * Legend: R = T*B rows (time-major); P = 100 cells (10 x 10); C encoder channels; K state
 * channels; H head width; A actions. Maps are channels-first, as the observation's planes are.
 *
 *   enc    e[R][C][P]  = relu(conv3x3(obs planes [4][P], enc.weight [C][4][3][3]) + enc.bias)
 *   core   h_t[B][K][P] = ConvGRU(e_t, h_{t-1})      tensors cgru.weight_ih [3K][C][3][3],
 *                         (h_{t-1} zeroed where       cgru.weight_hh [3K][K][3][3], cgru.bias_ih,
 *                          an episode began)          cgru.bias_hh [3K] ({@link Layers.ConvGruCell})
 *   head   y[R][H]     = relu(h flattened (index k*P + p) . head.weight^T + head.bias), head.weight [H][K*P]
 *   out    logits[R][A] = y . policy.weight^T + policy.bias;  values[R] = y . value.weight^T + value.bias
 * </pre>
 *
 * <p>Parameters: 36C + C + 3K(9C + 9K + 2) + (KP + 1)H + (A + 1)(H + 1). Multiply-adds per forward
 * step: 3,600 C + 2,700 K (C + K) + 100 K H + (A + 1) H ({@link Config#forwardMacs}).
 */
public final class ConvGruPolicy implements PolicyNet {
  public static final int OBS = 400, P = 100, SIDE = 10, PLANES = 4;

  /** @param channels C; @param state K; @param hidden H; @param actions A; @param seed initialisation. */
  public record Config(int channels, int state, int hidden, int actions, long seed) {
    public Config {
      if (channels < 1 || state < 1 || hidden < 1 || actions < 1) throw new IllegalArgumentException("sizes must be positive: " + this);
    }

    public String toJson() {
      return ConfigJson.write(this);
    }

    public static Config fromJson(String json) {
      return ConfigJson.read(json, Config.class, "convgru policy config");
    }

    public double forwardMacs() {
      return 3600.0 * channels + 2700.0 * state * (channels + state) + (double) P * state * hidden + (actions + 1.0) * hidden;
    }
  }

  private final Config cfg;
  private final Params params = new Params();
  private final Params.Tensor encW, encB, headW, headB, polW, polB, valW, valB;
  private final Layers.ConvGruCell cell;
  private final int C, K, H, A, KP;

  // Activations of the last forward(), per time step (allocated per (T, B) shape).
  private int shapeT = -1, shapeB = -1;
  private float[][] x, encPre, enc, hIn, hOut, cache;
  private float[] y, yPre, hAll;
  private boolean[] reset;
  // Gradients of the backward pass (same shape).
  private float[] dy, dyPre, dhAll, carry, dhOut, dhIn, dEnc, dPre, dx;
  // Scratch for step() (per N).
  private float[] sx = new float[0], sPre = new float[0], sEnc = new float[0], sH = new float[0], sCache = new float[0],
      sY = new float[0], sYPre = new float[0];

  public ConvGruPolicy(Config cfg) {
    this.cfg = cfg;
    C = cfg.channels();
    K = cfg.state();
    H = cfg.hidden();
    A = cfg.actions();
    KP = K * P;
    encW = params.add("enc.weight", C, PLANES, 3, 3);
    encB = params.add("enc.bias", C);
    cell = new Layers.ConvGruCell(params, "cgru", C, K, SIDE, SIDE);
    headW = params.add("head.weight", H, KP);
    headB = params.add("head.bias", H);
    polW = params.add("policy.weight", A, H);
    polB = params.add("policy.bias", A);
    valW = params.add("value.weight", 1, H);
    valB = params.add("value.bias", 1);
    params.allocate();
    Rng rng = new Rng(cfg.seed());
    // He-uniform for the ReLU layers, PyTorch's default bound 1/sqrt(fan_in) for the GRU, small heads.
    uniform(rng, encW, (float) Math.sqrt(6.0 / (PLANES * 9)));
    uniform(rng, cell.wIh, (float) (1 / Math.sqrt(C * 9)));
    uniform(rng, cell.wHh, (float) (1 / Math.sqrt(K * 9)));
    uniform(rng, cell.bIh, (float) (1 / Math.sqrt(C * 9)));
    uniform(rng, cell.bHh, (float) (1 / Math.sqrt(K * 9)));
    uniform(rng, headW, (float) Math.sqrt(6.0 / KP));
    uniform(rng, polW, 0.01f * (float) Math.sqrt(3.0 / H));
    uniform(rng, valW, (float) Math.sqrt(3.0 / H));
  }

  private void uniform(Rng rng, Params.Tensor t, float bound) {
    for (int i = 0; i < t.size(); i++) params.data[t.offset() + i] = (2 * rng.nextFloat() - 1) * bound;
  }

  public Config config() { return cfg; }

  @Override public int numActions() { return A; }

  @Override public int stateSize() { return KP; }

  @Override public Params params() { return params; }

  private static void planes(byte[] obs, int obsOff, float[] out, int n) {
    for (int i = 0; i < n * OBS; i++) out[i] = obs[obsOff + i];
  }

  /** relu(conv) encoder of n rows: pre and post activations. */
  private void encode(float[] xs, float[] pre, float[] post, int n) {
    Layers.conv3x3Forward(pre, xs, params.data, encW.offset(), encB.offset(), n, PLANES, C, SIDE, SIDE);
    Layers.reluForward(post, pre, n * C * P);
  }

  /** Heads of n rows from h [n][KP]: y pre/post activations, logits and values at row offset {@code r0}. */
  private void heads(float[] h, float[] pre, float[] post, int n, float[] logits, float[] values, int r0) {
    float[] w = params.data;
    // Row by row (not one Kernels product, whose summation order depends on the row count), so a
    // row's outputs do not depend on how many rows are computed together (rollout, shards, segment).
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < H; j++) {
        float s = w[headB.offset() + j];
        int wj = headW.offset() + j * KP, hr = r * KP;
        for (int k = 0; k < KP; k++) s += h[hr + k] * w[wj + k];
        pre[r * H + j] = s;
      }
    }
    Layers.reluForward(post, pre, n * H);
    for (int r = 0; r < n; r++) {
      for (int a = 0; a < A; a++) {
        float s = w[polB.offset() + a];
        for (int j = 0; j < H; j++) s += post[r * H + j] * w[polW.offset() + a * H + j];
        logits[(r0 + r) * A + a] = s;
      }
      float v = w[valB.offset()];
      for (int j = 0; j < H; j++) v += post[r * H + j] * w[valW.offset() + j];
      values[r0 + r] = v;
    }
  }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    if (sx.length < n * OBS) {
      sx = new float[n * OBS];
      sPre = new float[n * C * P];
      sEnc = new float[n * C * P];
      sH = new float[n * KP];
      sCache = new float[n * 4 * KP];
      sY = new float[n * H];
      sYPre = new float[n * H];
    }
    planes(obs, 0, sx, n);
    encode(sx, sPre, sEnc, n);
    cell.forward(sH, sCache, sEnc, state, params, n);
    System.arraycopy(sH, 0, state, 0, n * KP);
    heads(sH, sYPre, sY, n, logits, values, 0);
  }

  private void ensure(int t, int b) {
    if (t == shapeT && b == shapeB) return;
    shapeT = t;
    shapeB = b;
    x = new float[t][b * OBS];
    encPre = new float[t][b * C * P];
    enc = new float[t][b * C * P];
    hIn = new float[t][b * KP];
    hOut = new float[t][b * KP];
    cache = new float[t][b * 4 * KP];
    hAll = new float[t * b * KP];
    y = new float[t * b * H];
    yPre = new float[t * b * H];
    reset = new boolean[t * b];
    dy = new float[t * b * H];
    dyPre = new float[t * b * H];
    dhAll = new float[t * b * KP];
    carry = new float[b * KP];
    dhOut = new float[b * KP];
    dhIn = new float[b * KP];
    dEnc = new float[b * C * P];
    dPre = new float[b * C * P];
    dx = new float[b * OBS];
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    ensure(t, b);
    System.arraycopy(resetBefore, 0, reset, 0, t * b);
    for (int s = 0; s < t; s++) {
      planes(obs, s * b * OBS, x[s], b);
      encode(x[s], encPre[s], enc[s], b);
      float[] prev = s == 0 ? h0 : hOut[s - 1];
      for (int i = 0; i < b; i++) {
        if (resetBefore[s * b + i]) java.util.Arrays.fill(hIn[s], i * KP, (i + 1) * KP, 0f);
        else System.arraycopy(prev, i * KP, hIn[s], i * KP, KP);
      }
      cell.forward(hOut[s], cache[s], enc[s], hIn[s], params, b);
      System.arraycopy(hOut[s], 0, hAll, s * b * KP, b * KP);
    }
    heads(hAll, yPre, y, t * b, logits, values, 0);
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    int t = shapeT, b = shapeB, rows = t * b;
    float[] w = params.data, g = params.grad;
    // heads: dy = dlogits . Wp + dvalues . Wv, and their weight gradients
    java.util.Arrays.fill(dy, 0f);
    java.util.Arrays.fill(dyPre, 0f);
    java.util.Arrays.fill(dhAll, 0f);
    java.util.Arrays.fill(carry, 0f);
    Layers.linearBackward(dy, g, polW.offset(), polB.offset(), dLogits, y, w, rows, H, A);
    Layers.linearBackward(dy, g, valW.offset(), valB.offset(), dValues, y, w, rows, H, 1);
    Layers.reluBackward(dyPre, yPre, dy, rows * H);
    Layers.linearBackward(dhAll, g, headW.offset(), headB.offset(), dyPre, hAll, w, rows, KP, H);
    // through time, last step first; the gradient into h0 is dropped (h0 is data)
    for (int s = t - 1; s >= 0; s--) {
      for (int i = 0; i < b * KP; i++) dhOut[i] = dhAll[s * b * KP + i] + carry[i];
      java.util.Arrays.fill(dhIn, 0f);
      java.util.Arrays.fill(dEnc, 0f);
      cell.backward(dEnc, dhIn, dhOut, cache[s], enc[s], hIn[s], params, b);
      for (int i = 0; i < b; i++) {
        if (reset[s * b + i]) java.util.Arrays.fill(carry, i * KP, (i + 1) * KP, 0f);
        else System.arraycopy(dhIn, i * KP, carry, i * KP, KP);
      }
      java.util.Arrays.fill(dPre, 0f);
      Layers.reluBackward(dPre, encPre[s], dEnc, b * C * P);
      Layers.conv3x3Backward(dx, g, encW.offset(), encB.offset(), dPre, x[s], w, b, PLANES, C, SIDE, SIDE);
    }
  }
}
