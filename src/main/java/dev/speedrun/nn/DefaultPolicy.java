package dev.speedrun.nn;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.util.Arrays;

/**
 * The default recurrent actor-critic: a gather-embedding of the observation's active cells, ReLU,
 * L minGRU layers of width H (as PufferLib uses minGRU), a policy head and a value head.
 *
 * <pre>
 * Legend: R = T*B rows (time-major, row r = t*B + b); O = 400 observation bytes; H hidden width;
 *         L layers; A actions; G = 3H (candidate, gate, proj pre-activations of one layer).
 *
 *   embed    x0[R][H]   = relu(embed.bias + sum over active cells i of embed.weight[i][:])
 *                         (never multiplies the 400-wide one-hot vector; about 60 cells are active)
 *   layer l  a[R][G]    = x_l . rnn.l.weight^T + rnn.l.bias        (weight [G][H], PyTorch layout;
 *                         one batched product over all T*B rows, since the gates read only x)
 *            c, z, p    = a[:, 0:H], a[:, H:2H], a[:, 2H:3H]        (PufferLib's chunk order)
 *            g          = c + 0.5 if c >= 0 else sigmoid(c)
 *            h_t        = (1 - sigmoid(z)) * h_{t-1} + sigmoid(z) * g   (h_{t-1} = 0 after a reset)
 *            x_{l+1}    = sigmoid(p) * h_t + (1 - sigmoid(p)) * x_l     (output highway)
 *   heads    logits[R][A] = x_L . policy.weight^T + policy.bias
 *            values[R]    = x_L . value.weight^T + value.bias
 *   state    [B][L*H]: layer 0's h, then layer 1's, ...
 * </pre>
 *
 * <p>Parameters: O*H + H (embedding) + L*(3H*H + 3H) (minGRU) + (A+1)*(H+1) (heads). The default
 * (H = 128, L = 2, A = 5) has 51,328 + 99,072 + 774 = 151,174 parameters. Multiply-adds per step and
 * environment: about 60*H adds for the embedding (7,680), 3*H*H*L for the minGRU products (98,304),
 * (A+1)*H for the heads (768), plus about 20*H*L elementwise operations: about 107k multiply-adds.
 *
 * <p>Unlike PufferLib's layer (no bias), the minGRU linear has a bias, initialised to zero.
 * Activations are allocated once per shape and reused; {@link #step} and {@link #forward} keep
 * separate buffers, so rollout steps do not clobber a training segment's activations.
 */
public final class DefaultPolicy implements PolicyNet {
  public static final int OBS = 400;

  /**
   * Architecture and initialisation of a {@link DefaultPolicy}; stored in checkpoints as JSON.
   *
   * @param hidden H, width of the embedding and of every minGRU layer (default 128)
   * @param layers L, number of minGRU layers (default 2)
   * @param actions A, number of logits of the policy head (5 for Boxoban)
   * @param seed seed of the deterministic parameter initialisation
   */
  public record Config(int hidden, int layers, int actions, long seed) {
    public static final Config DEFAULT = new Config(128, 2, 5, 1);

    private static final ObjectMapper JSON =
        new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    public Config {
      if (hidden < 1 || hidden > 65536) throw new UserError("policy config: hidden must be in 1..65536, got " + hidden);
      if (layers < 0 || layers > 64) throw new UserError("policy config: layers must be in 0..64, got " + layers);
      if (actions < 1 || actions > 1024) throw new UserError("policy config: actions must be in 1..1024, got " + actions);
    }

    public String toJson() {
      try {
        return JSON.writeValueAsString(this);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    public static Config fromJson(String json) {
      try {
        Config c = JSON.readValue(json, Config.class);
        if (c == null) throw new UserError("policy config: empty JSON");
        return c;
      } catch (JsonProcessingException e) {
        if (e.getCause() instanceof UserError u) throw u;
        throw new UserError("policy config is not valid JSON: " + e.getOriginalMessage());
      }
    }
  }

  /** Everything one forward pass keeps for the backward pass, for up to {@code cap} rows. */
  private static final class Acts {
    int cap, t, b;
    int[] active; // [R][O], the first count[r] entries are row r's active cells
    int[] count; // [R]
    boolean[] reset; // [R]
    float[] h0; // [B][S]
    float[][] x; // [L+1][R][H]: x[0] = relu(embedding), x[l+1] = output of layer l
    float[][] a; // [L][R][G] pre-activations
    float[][] h; // [L][R][H] hidden states
    float[] dx, dy, da, dhc; // backward scratch: [R][H], [R][H], [R][G], [B][H]

    void ensure(int rows, int bsz, int hidden, int layers, boolean training) {
      if (rows > cap) {
        cap = rows;
        active = new int[rows * OBS];
        count = new int[rows];
        reset = new boolean[rows];
        x = new float[layers + 1][rows * hidden];
        a = new float[layers][rows * 3 * hidden];
        h = new float[layers][rows * hidden];
        if (training) {
          dx = new float[rows * hidden];
          dy = new float[rows * hidden];
          da = new float[rows * 3 * hidden];
        }
      }
      if (h0 == null || h0.length < bsz * hidden * layers) {
        h0 = new float[bsz * hidden * layers];
        if (training) dhc = new float[bsz * hidden];
      }
    }
  }

  private final Config cfg;
  private final int H, L, A, S, G;
  private final Params params = new Params();
  private final Params.Tensor embW, embB, polW, polB, valW, valB;
  private final Params.Tensor[] rnnW, rnnB;
  private final Acts roll = new Acts(), train = new Acts();
  private boolean haveForward;

  public DefaultPolicy(Config cfg) {
    this.cfg = cfg;
    H = cfg.hidden();
    L = cfg.layers();
    A = cfg.actions();
    S = L * H;
    G = 3 * H;
    embW = params.add("embed.weight", OBS, H);
    embB = params.add("embed.bias", H);
    rnnW = new Params.Tensor[L];
    rnnB = new Params.Tensor[L];
    for (int l = 0; l < L; l++) {
      rnnW[l] = params.add("rnn." + l + ".weight", G, H);
      rnnB[l] = params.add("rnn." + l + ".bias", G);
    }
    polW = params.add("policy.weight", A, H);
    polB = params.add("policy.bias", A);
    valW = params.add("value.weight", 1, H);
    valB = params.add("value.bias", 1);
    params.allocate();
    init();
  }

  public Config config() { return cfg; }

  /** Uniform initialisation with the scales below, deterministic from {@code cfg.seed()}. */
  private void init() {
    Rng rng = new Rng(Rng.mix(cfg.seed(), 0x0DEFA017L, 0));
    uniform(rng, embW, (float) Math.sqrt(3.0 / 60)); // about 60 active cells: unit variance sum
    for (int l = 0; l < L; l++) uniform(rng, rnnW[l], (float) (1 / Math.sqrt(H))); // PyTorch default
    uniform(rng, polW, (float) (0.01 * Math.sqrt(3))); // small logits: near-uniform policy at start
    uniform(rng, valW, (float) (1 / Math.sqrt(H)));
  }

  private void uniform(Rng rng, Params.Tensor t, float bound) {
    for (int i = 0; i < t.size(); i++) params.data[t.offset() + i] = (2 * rng.nextFloat() - 1) * bound;
  }

  @Override public int numActions() { return A; }
  @Override public int stateSize() { return S; }
  @Override public Params params() { return params; }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    roll.ensure(n, n, H, L, false);
    run(roll, obs, null, state, 1, n, logits, values);
    // The last step's hidden states are the next state.
    for (int i = 0; i < n; i++) {
      for (int l = 0; l < L; l++) System.arraycopy(roll.h[l], i * H, state, i * S + l * H, H);
    }
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    train.ensure(t * b, b, H, L, true);
    run(train, obs, resetBefore, h0, t, b, logits, values);
    haveForward = true;
  }

  private void run(Acts s, byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    int rows = t * b;
    s.t = t;
    s.b = b;
    if (resetBefore != null) System.arraycopy(resetBefore, 0, s.reset, 0, rows);
    else Arrays.fill(s.reset, 0, rows, false);
    System.arraycopy(h0, 0, s.h0, 0, b * S);
    float[] w = params.data;

    // Embedding: gather-sum of the active cells' rows, then ReLU.
    float[] x0 = s.x[0];
    for (int r = 0; r < rows; r++) {
      int c = 0, ob = r * OBS, ab = r * OBS, xo = r * H;
      for (int i = 0; i < OBS; i++) if (obs[ob + i] != 0) s.active[ab + c++] = i;
      s.count[r] = c;
      System.arraycopy(w, embB.offset(), x0, xo, H);
      for (int q = 0; q < c; q++) {
        int wo = embW.offset() + s.active[ab + q] * H;
        for (int j = 0; j < H; j++) x0[xo + j] += w[wo + j];
      }
      for (int j = 0; j < H; j++) if (x0[xo + j] < 0f) x0[xo + j] = 0f;
    }

    // minGRU layers.
    for (int l = 0; l < L; l++) {
      float[] x = s.x[l], a = s.a[l], hs = s.h[l], y = s.x[l + 1];
      for (int r = 0; r < rows; r++) System.arraycopy(w, rnnB[l].offset(), a, r * G, G);
      Kernels.abt(x, 0, w, rnnW[l].offset(), a, 0, rows, G, H, true);
      for (int ti = 0; ti < t; ti++) {
        for (int bi = 0; bi < b; bi++) {
          int r = ti * b + bi, ao = r * G, ho = r * H;
          float[] hp;
          int hpo;
          boolean zero = s.reset[r];
          if (ti == 0) {
            hp = s.h0;
            hpo = bi * S + l * H;
          } else {
            hp = hs;
            hpo = (r - b) * H;
          }
          for (int j = 0; j < H; j++) {
            float c = a[ao + j];
            float z = sigmoid(a[ao + H + j]);
            float p = sigmoid(a[ao + 2 * H + j]);
            float g = c >= 0f ? c + 0.5f : sigmoid(c);
            float prev = zero ? 0f : hp[hpo + j];
            float hn = prev + z * (g - prev);
            hs[ho + j] = hn;
            float xv = x[ho + j];
            y[ho + j] = xv + p * (hn - xv);
          }
        }
      }
    }

    // Heads.
    float[] xl = s.x[L];
    for (int r = 0; r < rows; r++) System.arraycopy(w, polB.offset(), logits, r * A, A);
    Kernels.abt(xl, 0, w, polW.offset(), logits, 0, rows, A, H, true);
    for (int r = 0; r < rows; r++) {
      float v = w[valB.offset()];
      int xo = r * H, vo = valW.offset();
      for (int j = 0; j < H; j++) v += xl[xo + j] * w[vo + j];
      values[r] = v;
    }
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    if (!haveForward) throw new IllegalStateException("backward without forward");
    Acts s = train;
    int t = s.t, b = s.b, rows = t * b;
    float[] w = params.data, gr = params.grad;
    float[] dy = s.dy, dx = s.dx, da = s.da;

    // Heads: dx_L = dLogits . policy.weight + dValues * value.weight; weight grads.
    float[] xl = s.x[L];
    Kernels.ab(dLogits, 0, w, polW.offset(), dy, 0, rows, H, A, false);
    Kernels.atb(dLogits, 0, xl, 0, gr, polW.offset(), A, H, rows, true);
    for (int r = 0; r < rows; r++) {
      float dv = dValues[r];
      int xo = r * H, vo = valW.offset();
      for (int j = 0; j < H; j++) {
        dy[xo + j] += dv * w[vo + j];
        gr[vo + j] += dv * xl[xo + j];
      }
      gr[valB.offset()] += dv;
      for (int k = 0; k < A; k++) gr[polB.offset() + k] += dLogits[r * A + k];
    }

    // minGRU layers, last to first; dy holds dLoss/d(output of layer l).
    for (int l = L - 1; l >= 0; l--) {
      float[] x = s.x[l], a = s.a[l], hs = s.h[l];
      Arrays.fill(s.dhc, 0, b * H, 0f);
      for (int ti = t - 1; ti >= 0; ti--) {
        for (int bi = 0; bi < b; bi++) {
          int r = ti * b + bi, ao = r * G, ho = r * H, co = bi * H;
          boolean zero = s.reset[r];
          float[] hp = ti == 0 ? s.h0 : hs;
          int hpo = ti == 0 ? bi * S + l * H : (r - b) * H;
          for (int j = 0; j < H; j++) {
            float c = a[ao + j];
            float z = sigmoid(a[ao + H + j]);
            float p = sigmoid(a[ao + 2 * H + j]);
            float sc = c >= 0f ? 0f : sigmoid(c);
            float g = c >= 0f ? c + 0.5f : sc;
            float dg = c >= 0f ? 1f : sc * (1f - sc);
            float prev = zero ? 0f : hp[hpo + j];
            float hn = hs[ho + j], xv = x[ho + j], dyv = dy[ho + j];
            float dh = dyv * p + s.dhc[co + j];
            da[ao + 2 * H + j] = dyv * (hn - xv) * p * (1f - p);
            dx[ho + j] = dyv * (1f - p);
            da[ao + H + j] = dh * (g - prev) * z * (1f - z);
            da[ao + j] = dh * z * dg;
            s.dhc[co + j] = zero ? 0f : dh * (1f - z);
          }
        }
      }
      Kernels.atb(da, 0, x, 0, gr, rnnW[l].offset(), G, H, rows, true);
      int bo = rnnB[l].offset();
      for (int r = 0; r < rows; r++) for (int j = 0; j < G; j++) gr[bo + j] += da[r * G + j];
      Kernels.ab(da, 0, w, rnnW[l].offset(), dx, 0, rows, H, G, true);
      float[] tmp = dy;
      dy = dx;
      dx = tmp;
    }

    // Embedding: through the ReLU, then scatter-add into the active rows.
    float[] x0 = s.x[0];
    for (int r = 0; r < rows; r++) {
      int xo = r * H;
      for (int j = 0; j < H; j++) {
        float d = x0[xo + j] > 0f ? dy[xo + j] : 0f;
        dy[xo + j] = d;
        gr[embB.offset() + j] += d;
      }
      for (int q = 0; q < s.count[r]; q++) {
        int go = embW.offset() + s.active[r * OBS + q] * H;
        for (int j = 0; j < H; j++) gr[go + j] += dy[xo + j];
      }
    }
  }

  static float sigmoid(float v) {
    return 1f / (1f + (float) Math.exp(-v));
  }
}
