package dev.speedrun.nn;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

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
 * Activations are allocated once per shape and reused (about (4 + 5L) H + 400 floats/ints per
 * row); {@link #step} and {@link #forward} keep separate buffers, so rollout steps do not clobber a
 * training segment's activations. The forward pass keeps the activated gates (g, sigmoid(z),
 * sigmoid(p)) in place of the pre-activations; the backward pass recovers g' from g alone (g >= 0.5
 * exactly when the pre-activation was >= 0, up to float rounding of sigmoid within ~1e-7 of 0).
 *
 * <p>Work is split over {@link #setWorkers workers} by rows, sequences or columns, never across a
 * sum, so the bits do not depend on the thread count. Not thread-safe: one caller at a time.
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

    public Config {
      if (hidden < 1 || hidden > 65536) throw new UserError("policy config: hidden must be in 1..65536, got " + hidden);
      if (layers < 0 || layers > 64) throw new UserError("policy config: layers must be in 0..64, got " + layers);
      if (actions < 1 || actions > 1024) throw new UserError("policy config: actions must be in 1..1024, got " + actions);
    }

    public String toJson() {
      return ConfigJson.write(this);
    }

    public static Config fromJson(String json) {
      return ConfigJson.read(json, Config.class, "policy config");
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
  private final Params params;
  private final boolean gather; // false: the input x0 comes from the caller (ConvPolicy's encoder)
  private final Params.Tensor embW, embB, polW, polB, valW, valB;
  private final Params.Tensor[] rnnW, rnnB;
  private final Acts roll = new Acts(), train = new Acts();
  private boolean haveForward;
  private Workers workers = SERIAL;
  private final ParMm mm = new ParMm();
  private final float[][] wT; // [L][H][G]: rnn.l.weight transposed, refreshed by every forward pass

  private static final Workers SERIAL = new Workers(1);
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final int V = F.length();

  public DefaultPolicy(Config cfg) {
    this(cfg, new Params(), true);
  }

  /**
   * The recurrent core for another encoder: with {@code gather} false there is no embedding, the
   * caller supplies x0 [R][H] ({@link #forwardFrom}, {@link #stepFrom}) and reads dLoss/dx0 after
   * {@link #backward} from {@link #inputGrad}. The core's tensors are declared into {@code params}
   * after the caller's and the buffers allocated here.
   */
  DefaultPolicy(Config cfg, Params params, boolean gather) {
    this.cfg = cfg;
    this.params = params;
    this.gather = gather;
    H = cfg.hidden();
    L = cfg.layers();
    A = cfg.actions();
    S = L * H;
    G = 3 * H;
    embW = gather ? params.add("embed.weight", OBS, H) : null;
    embB = gather ? params.add("embed.bias", H) : null;
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
    wT = new float[L][H * G];
    init();
  }

  public Config config() { return cfg; }

  /** Uniform initialisation with the scales below, deterministic from {@code cfg.seed()}. */
  private void init() {
    Rng rng = new Rng(Rng.mix(cfg.seed(), 0x0DEFA017L, 0));
    if (gather) uniform(rng, embW, (float) Math.sqrt(3.0 / 60)); // about 60 active cells: unit variance sum
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

  /**
   * Runs a throwaway policy of this configuration on tiny shapes until the JIT has compiled the
   * hot paths (until then Vector API code runs in a slow fallback: a first 4096-row pass can take
   * seconds). Touches no other policy; meant to run before a run's clock starts. Returns the
   * seconds spent.
   */
  public static double warmUp(Config cfg, Workers workers, int iterations) {
    long t0 = System.nanoTime();
    DefaultPolicy net = new DefaultPolicy(cfg);
    net.setWorkers(workers);
    PolicyNet.exercise(net, 2, 12, iterations);
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Splits the work of this policy over {@code workers} (results do not depend on the thread count). */
  public void setWorkers(Workers workers) {
    this.workers = workers;
  }

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

  /** {@link #step} from a caller's input x0 [N][H] in place of the embedding (core without gather). */
  void stepFrom(float[] x0, int n, float[] state, float[] logits, float[] values) {
    roll.ensure(n, n, H, L, false);
    System.arraycopy(x0, 0, roll.x[0], 0, n * H);
    run(roll, null, null, state, 1, n, logits, values);
    for (int i = 0; i < n; i++) {
      for (int l = 0; l < L; l++) System.arraycopy(roll.h[l], i * H, state, i * S + l * H, H);
    }
  }

  /** {@link #forward} from a caller's input x0 [T][B][H] in place of the embedding. */
  void forwardFrom(float[] x0, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    train.ensure(t * b, b, H, L, true);
    System.arraycopy(x0, 0, train.x[0], 0, t * b * H);
    run(train, null, resetBefore, h0, t, b, logits, values);
    haveForward = true;
  }

  /** dLoss/dx0 [T][B][H] of the last {@link #backward} of a core without gather (the core's scratch). */
  float[] inputGrad() {
    return train.dy;
  }

  // The job being run by the worker tasks below (set before each Workers.run, read by the tasks).
  private Acts cur;
  private byte[] curObs;
  private int curLayer;
  private float[] curSum, curSrc;
  private int curSumOff, curSumRows, curSumCols;
  private final Workers.Task embedTask = this::embedRows;
  private final Workers.Task scanTask = this::scanForward;
  private final Workers.Task scanBackTask = this::scanBackward;
  private final Workers.Task embedBackTask = this::embedBackwardCols;
  private final Workers.Task colSumTask = this::colSumCols;

  private void run(Acts s, byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    int rows = t * b;
    s.t = t;
    s.b = b;
    if (resetBefore != null) System.arraycopy(resetBefore, 0, s.reset, 0, rows);
    else Arrays.fill(s.reset, 0, rows, false);
    System.arraycopy(h0, 0, s.h0, 0, b * S);
    float[] w = params.data;
    cur = s;
    if (gather) {
      curObs = obs;
      workers.run(embedTask, rows, 4);
      curObs = null;
    }
    for (int l = 0; l < L; l++) {
      float[] a = s.a[l];
      for (int r = 0; r < rows; r++) System.arraycopy(w, rnnB[l].offset(), a, r * G, G);
      transpose(w, rnnW[l].offset(), G, H, wT[l]);
      mm.ab(workers, s.x[l], 0, wT[l], 0, a, 0, rows, G, H, true);
      curLayer = l;
      workers.run(scanTask, b, 1);
    }
    float[] xl = s.x[L];
    for (int r = 0; r < rows; r++) System.arraycopy(w, polB.offset(), logits, r * A, A);
    mm.abt(workers, xl, 0, w, polW.offset(), logits, 0, rows, A, H, true);
    Arrays.fill(values, 0, rows, w[valB.offset()]);
    mm.abt(workers, xl, 0, w, valW.offset(), values, 0, rows, 1, H, true);
  }

  /** dst[c][r] = src[off + r*cols + c] for a [rows][cols] matrix. */
  private static void transpose(float[] src, int off, int rows, int cols, float[] dst) {
    for (int r0 = 0; r0 < rows; r0 += 16) { // 16x16 blocks: both sides stay in cache lines
      int r1 = Math.min(rows, r0 + 16);
      for (int c0 = 0; c0 < cols; c0 += 16) {
        int c1 = Math.min(cols, c0 + 16);
        for (int r = r0; r < r1; r++) for (int c = c0; c < c1; c++) dst[c * rows + r] = src[off + r * cols + c];
      }
    }
  }

  /** Embedding of rows [r0, r1): gather-sum of the active cells' rows plus bias, then ReLU. */
  private void embedRows(int worker, int r0, int r1) {
    Acts s = cur;
    byte[] obs = curObs;
    float[] w = params.data, x0 = s.x[0];
    int ew = embW.offset(), eb = embB.offset();
    int h4 = H - H % (4 * V), hv = H - H % V;
    int[] act = s.active;
    for (int r = r0; r < r1; r++) {
      int ob = r * OBS, xo = r * H;
      int c = activeCells(obs, ob, act, ob);
      s.count[r] = c;
      // Four independent accumulators per step hide the add latency; each element still sums
      // its cells in order, so every split of the work gives the same bits.
      for (int j = 0; j < h4; j += 4 * V) {
        FloatVector a0 = FloatVector.fromArray(F, w, eb + j), a1 = FloatVector.fromArray(F, w, eb + j + V);
        FloatVector a2 = FloatVector.fromArray(F, w, eb + j + 2 * V), a3 = FloatVector.fromArray(F, w, eb + j + 3 * V);
        for (int q = 0; q < c; q++) {
          int wo = ew + act[ob + q] * H + j;
          a0 = a0.add(FloatVector.fromArray(F, w, wo));
          a1 = a1.add(FloatVector.fromArray(F, w, wo + V));
          a2 = a2.add(FloatVector.fromArray(F, w, wo + 2 * V));
          a3 = a3.add(FloatVector.fromArray(F, w, wo + 3 * V));
        }
        a0.max(0f).intoArray(x0, xo + j);
        a1.max(0f).intoArray(x0, xo + j + V);
        a2.max(0f).intoArray(x0, xo + j + 2 * V);
        a3.max(0f).intoArray(x0, xo + j + 3 * V);
      }
      for (int j = h4; j < hv; j += V) {
        FloatVector acc = FloatVector.fromArray(F, w, eb + j);
        for (int q = 0; q < c; q++) acc = acc.add(FloatVector.fromArray(F, w, ew + act[ob + q] * H + j));
        acc.max(0f).intoArray(x0, xo + j);
      }
      for (int j = hv; j < H; j++) {
        float acc = w[eb + j];
        for (int q = 0; q < c; q++) acc += w[ew + act[ob + q] * H + j];
        x0[xo + j] = Math.max(acc, 0f);
      }
    }
  }

  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_256;

  /**
   * Writes the indices of the non-zero bytes of obs[ob, ob + 400) to act[ao...] in increasing
   * order and returns their count: 32 bytes per compare, then one step per set bit.
   */
  static int activeCells(byte[] obs, int ob, int[] act, int ao) {
    int c = 0, i = 0, step = BYTES.length();
    for (; i + step <= OBS; i += step) {
      long bits = ByteVector.fromArray(BYTES, obs, ob + i).compare(VectorOperators.NE, (byte) 0).toLong();
      while (bits != 0) {
        act[ao + c++] = i + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
      }
    }
    for (; i < OBS; i++) if (obs[ob + i] != 0) act[ao + c++] = i;
    return c;
  }

  /**
   * minGRU recurrence of layer {@code curLayer} for sequences [b0, b1): replaces the
   * pre-activations in a by the activations (g, sigmoid(z), sigmoid(p)) that the backward pass
   * reads, and writes h and the layer output.
   */
  private void scanForward(int worker, int b0, int b1) {
    Acts s = cur;
    int l = curLayer, t = s.t, b = s.b, hv = H - H % V;
    float[] x = s.x[l], a = s.a[l], hs = s.h[l], y = s.x[l + 1];
    for (int ti = 0; ti < t; ti++) {
      for (int bi = b0; bi < b1; bi++) {
        int r = ti * b + bi, ao = r * G, ho = r * H;
        boolean zero = s.reset[r];
        float[] hp = ti == 0 ? s.h0 : hs;
        int hpo = ti == 0 ? bi * S + l * H : (r - b) * H;
        // Activations first, array to array (no vector crosses a call: see Kernels.activate).
        Kernels.activate(a, ao, H, true);
        Kernels.activate(a, ao + H, 2 * H, false);
        for (int j = 0; j < hv; j += V) {
          FloatVector g = FloatVector.fromArray(F, a, ao + j);
          FloatVector z = FloatVector.fromArray(F, a, ao + H + j);
          FloatVector p = FloatVector.fromArray(F, a, ao + 2 * H + j);
          FloatVector prev = zero ? FloatVector.zero(F) : FloatVector.fromArray(F, hp, hpo + j);
          FloatVector hn = g.sub(prev).fma(z, prev);
          FloatVector xv = FloatVector.fromArray(F, x, ho + j);
          hn.intoArray(hs, ho + j);
          hn.sub(xv).fma(p, xv).intoArray(y, ho + j);
        }
        for (int j = hv; j < H; j++) {
          float g = a[ao + j], z = a[ao + H + j], p = a[ao + 2 * H + j];
          float prev = zero ? 0f : hp[hpo + j];
          float hn = Math.fma(z, g - prev, prev);
          hs[ho + j] = hn;
          float xv = x[ho + j];
          y[ho + j] = Math.fma(p, hn - xv, xv);
        }
      }
    }
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    if (!haveForward) throw new IllegalStateException("backward without forward");
    Acts s = train;
    int t = s.t, b = s.b, rows = t * b;
    float[] w = params.data, gr = params.grad;
    cur = s;

    // Heads: dx_L = dLogits . policy.weight + dValues (x) value.weight, and their weight gradients.
    float[] xl = s.x[L];
    mm.ab(workers, dLogits, 0, w, polW.offset(), s.dy, 0, rows, H, A, false);
    mm.ab(workers, dValues, 0, w, valW.offset(), s.dy, 0, rows, H, 1, true);
    mm.atb(workers, dLogits, 0, xl, 0, gr, polW.offset(), A, H, rows, true);
    mm.atb(workers, dValues, 0, xl, 0, gr, valW.offset(), 1, H, rows, true);
    colSum(dLogits, rows, A, polB.offset());
    colSum(dValues, rows, 1, valB.offset());

    // minGRU layers, last to first; dy holds dLoss/d(output of layer l), dx receives dLoss/d(input).
    for (int l = L - 1; l >= 0; l--) {
      curLayer = l;
      workers.run(scanBackTask, b, 1);
      float[] x = s.x[l], da = s.da;
      mm.atb(workers, da, 0, x, 0, gr, rnnW[l].offset(), G, H, rows, true);
      colSum(da, rows, G, rnnB[l].offset());
      mm.ab(workers, da, 0, w, rnnW[l].offset(), s.dx, 0, rows, H, G, true);
      float[] tmp = s.dy;
      s.dy = s.dx;
      s.dx = tmp;
    }

    // Embedding: through the ReLU, then bias and scatter-add into the active rows, split by columns.
    if (gather) workers.run(embedBackTask, H, V);
  }

  /** params.grad[off + j] += sum over rows of src[r][j], columns split over workers. */
  private void colSum(float[] src, int rows, int cols, int off) {
    curSrc = src;
    curSumRows = rows;
    curSumCols = cols;
    curSumOff = off;
    curSum = params.grad;
    if ((long) rows * cols < 16384) colSumCols(0, 0, cols);
    else workers.run(colSumTask, cols, V);
    curSrc = curSum = null;
  }

  private void colSumCols(int worker, int j0, int j1) {
    float[] src = curSrc, dst = curSum;
    int rows = curSumRows, cols = curSumCols, off = curSumOff, jv = j0 + (j1 - j0) - (j1 - j0) % V;
    for (int j = j0; j < jv; j += V) { // lanes are columns: each column still sums rows in order
      FloatVector acc = FloatVector.zero(F);
      for (int r = 0; r < rows; r++) acc = acc.add(FloatVector.fromArray(F, src, r * cols + j));
      FloatVector.fromArray(F, dst, off + j).add(acc).intoArray(dst, off + j);
    }
    for (int j = jv; j < j1; j++) {
      float acc = 0f;
      for (int r = 0; r < rows; r++) acc += src[r * cols + j];
      dst[off + j] += acc;
    }
  }

  /** Backward of the minGRU recurrence of layer {@code curLayer} for sequences [b0, b1). */
  private void scanBackward(int worker, int b0, int b1) {
    Acts s = cur;
    int l = curLayer, t = s.t, b = s.b, hv = H - H % V;
    float[] x = s.x[l], a = s.a[l], hs = s.h[l], dy = s.dy, dx = s.dx, da = s.da, dhc = s.dhc;
    Arrays.fill(dhc, b0 * H, b1 * H, 0f);
    FloatVector one = FloatVector.broadcast(F, 1f);
    for (int ti = t - 1; ti >= 0; ti--) {
      for (int bi = b0; bi < b1; bi++) {
        int r = ti * b + bi, ao = r * G, ho = r * H, co = bi * H;
        boolean zero = s.reset[r];
        float[] hp = ti == 0 ? s.h0 : hs;
        int hpo = ti == 0 ? bi * S + l * H : (r - b) * H;
        for (int j = 0; j < hv; j += V) {
          FloatVector g = FloatVector.fromArray(F, a, ao + j);
          FloatVector z = FloatVector.fromArray(F, a, ao + H + j);
          FloatVector p = FloatVector.fromArray(F, a, ao + 2 * H + j);
          // g >= 0.5 exactly when the pre-activation was >= 0 (there g' = 1, else g' = g (1 - g)).
          FloatVector dg = g.mul(one.sub(g)).blend(one, g.compare(VectorOperators.GE, 0.5f));
          FloatVector prev = zero ? FloatVector.zero(F) : FloatVector.fromArray(F, hp, hpo + j);
          FloatVector hn = FloatVector.fromArray(F, hs, ho + j), xv = FloatVector.fromArray(F, x, ho + j);
          FloatVector dyv = FloatVector.fromArray(F, dy, ho + j);
          FloatVector dh = dyv.fma(p, FloatVector.fromArray(F, dhc, co + j));
          dyv.mul(hn.sub(xv)).mul(p.mul(one.sub(p))).intoArray(da, ao + 2 * H + j);
          dyv.mul(one.sub(p)).intoArray(dx, ho + j);
          dh.mul(g.sub(prev)).mul(z.mul(one.sub(z))).intoArray(da, ao + H + j);
          dh.mul(z).mul(dg).intoArray(da, ao + j);
          (zero ? FloatVector.zero(F) : dh.mul(one.sub(z))).intoArray(dhc, co + j);
        }
        for (int j = hv; j < H; j++) {
          float g = a[ao + j], z = a[ao + H + j], p = a[ao + 2 * H + j];
          float dg = g >= 0.5f ? 1f : g * (1f - g);
          float prev = zero ? 0f : hp[hpo + j];
          float hn = hs[ho + j], xv = x[ho + j], dyv = dy[ho + j];
          float dh = Math.fma(dyv, p, dhc[co + j]);
          da[ao + 2 * H + j] = dyv * (hn - xv) * (p * (1f - p));
          dx[ho + j] = dyv * (1f - p);
          da[ao + H + j] = dh * (g - prev) * (z * (1f - z));
          da[ao + j] = dh * z * dg;
          dhc[co + j] = zero ? 0f : dh * (1f - z);
        }
      }
    }
  }

  /** Embedding backward for columns [j0, j1): ReLU mask, bias gradient, scatter-add into active rows. */
  private void embedBackwardCols(int worker, int j0, int j1) {
    Acts s = cur;
    int rows = s.t * s.b, jv = j0 + (j1 - j0) - (j1 - j0) % V;
    float[] gr = params.grad, x0 = s.x[0], dy = s.dy;
    int eb = embB.offset(), ew = embW.offset();
    for (int r = 0; r < rows; r++) {
      int xo = r * H, ob = r * OBS, c = s.count[r];
      for (int j = j0; j < jv; j += V) {
        FloatVector d = FloatVector.fromArray(F, dy, xo + j);
        d = d.blend(0f, FloatVector.fromArray(F, x0, xo + j).compare(VectorOperators.LE, 0f));
        FloatVector.fromArray(F, gr, eb + j).add(d).intoArray(gr, eb + j);
        for (int q = 0; q < c; q++) {
          int go = ew + s.active[ob + q] * H + j;
          FloatVector.fromArray(F, gr, go).add(d).intoArray(gr, go);
        }
      }
      for (int j = jv; j < j1; j++) {
        float d = x0[xo + j] > 0f ? dy[xo + j] : 0f;
        gr[eb + j] += d;
        for (int q = 0; q < c; q++) gr[ew + s.active[ob + q] * H + j] += d;
      }
    }
  }
}
