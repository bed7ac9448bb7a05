package dev.speedrun.nn;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.util.Arrays;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * A recurrent actor-critic with spatial weight sharing: two 3x3 convolutions over the 4 x 10 x 10
 * observation planes, a projection of the flattened feature map to width H, then the recurrent core
 * and heads of {@link DefaultPolicy} (its minGRU layers, policy and value heads, shared code).
 *
 * <pre>
 * Legend: R = T*B rows (time-major); P = 100 cells (10 x 10); C channels; H width; L minGRU layers;
 * NP = cells of the maps after conv1: P, or 64 (the 8 x 8 interior) with {@link Config#crop}.
 *
 *   conv1   a1[R][NP][C] = relu(conv3x3(obs planes, conv1.weight [C][4][3][3]) + conv1.bias)
 *           (with crop: the whole-board conv1's outputs at the 64 interior cells)
 *   conv2   a2[R][NP][C] = relu(conv3x3(a1, conv2.weight [C][C][3][3]) + conv2.bias)
 *           (with convs = n > 2: conv2 .. conv(n-1) write padded maps m2 .. m(n-1), each the input of
 *            the next, and convn writes a2; conv3.weight ... have conv2's shape)
 *           (stride 1, zero padding 1: outside the board counts as "no wall", as in PyTorch's
 *            padding=1; Boxoban boards have their own wall border)
 *   proj    x0[R][H]    = relu(a2 flattened cell-major (index p*C + c) . proj.weight^T + proj.bias)
 *                         proj.weight [H][NP*C]
 *   core    DefaultPolicy's minGRU layers and heads on x0 (tensors rnn.l.*, policy.*, value.*)
 * </pre>
 *
 * <p>How it is computed (the tensors keep PyTorch's layout; re-laid copies of the small conv
 * weights, and proj.weight^T, are rebuilt from them at the start of every pass):
 * <ul>
 *   <li>Feature maps are channels-last; a1 (and the backward pass's dLoss/da2, dLoss/da1) live in
 *       padded (S + 2) x (S + 2) maps with a zero border (S = 10, or 8 with crop), so no tap needs
 *       a bounds test.
 *   <li>conv1 is a table gather: a cell's 4 planes form a 4-bit pattern, and conv1.weight summed
 *       per tap and pattern gives a table [9][16][C]; a cell of a1 is the bias plus 9 table rows
 *       (9 vector adds instead of 36 C multiply-adds). Inputs other than 0/1 bytes take a general
 *       path (a multiply-add per non-zero plane and tap) with the same function.
 *   <li>conv2 is a direct convolution: for one board row of 10 cells (8 with crop), as many vector accumulators along
 *       the output channels, one weight vector load feeding 10 FMAs with broadcast inputs. When
 *       2C equals the vector width (C = 8 on AVX-512) two rows of the batch run together, lane
 *       2c + j holding channel c of row j (inputs broadcast as float pairs), so no lane idles; the
 *       backward pass's input gradient is the same kernel with flipped, transposed weights.
 *   <li>proj is one {@link Kernels} product against proj.weight^T (n = H), split over workers.
 *   <li>Weight gradients of the convolutions: conv2's as eight-accumulator sums over cells, conv1's
 *       as a gather over the non-zero inputs only (about 65 per row: value times dLoss/da1 at the 9
 *       cells each one feeds). They are summed per block of {@value #BLOCK} rows (a multiple of it for
 *       C above about 20), then the blocks in order, so results do not depend on the thread count.
 *   <li>The convolutions are split over {@link #setWorkers workers} by rows (rollout step, training
 *       forward and backward); the training forward keeps padded a1 ([R][(S + 2)^2][C] floats) for the
 *       backward pass, besides a2 [R][P][C] and x0.
 *   <li>Deeper stacks (convs > 2) run the same direct-convolution kernel layer by layer (no row
 *       pairs); the training forward keeps each middle map padded ([R][(S + 2)^2][C] floats each) and the
 *       backward pass walks them in reverse per chunk, each layer's weight gradient against its kept
 *       input, then the adjoint through that input's ReLU.
 * </ul>
 *
 * <p>Size (A = 5): parameters 36C + C + (convs - 1)(9C^2 + C) + NP C H + H + core (L (3H^2 + 3H) + 6(H+1)).
 * The default (C = 8, H = 64, L = 1) has 296 + 584 + 51,264 + 12,480 + 390 = 65,014 parameters.
 * Multiply-adds per forward step and environment as a dense network (what {@link Config#forwardMacs}
 * counts): 3,600 C (conv1) + 900 C^2 (conv2) + 100 C H (proj) + 3 H^2 L (minGRU) + 6 H (heads):
 * 28,800 + 57,600 + 51,200 + 12,288 + 384 = 150,272 for the default. Work actually done: conv1
 * is 900 C adds (7,200), so about 128.7k multiply-adds, plus about 2,000 C + 20 H L elementwise
 * operations. Measured on the 2-core AVX-512 machine (one thread, per row, C = 8 H = 64): conv1
 * about 1 us, conv2 forward about 55 GFLOP/s, proj 110-140 GFLOP/s; C = 16 runs conv2 at about
 * 80 GFLOP/s forward. Not thread-safe.
 */
public final class ConvPolicy implements PolicyNet {
  public static final int OBS = 400, P = 100, SIDE = 10, PLANES = 4;

  /**
   * Architecture and initialisation of a {@link ConvPolicy}; stored in checkpoints as JSON.
   *
   * @param channels C, channels of both convolutions (default 8)
   * @param hidden H, width of the projection and the minGRU layers (default 64)
   * @param layers L, number of minGRU layers (default 1)
   * @param actions A, logits of the policy head (5 for Boxoban)
   * @param seed seed of the deterministic parameter initialisation
   * @param convs number of 3x3 convolutions (default 2): conv1 on the planes, then convs - 1 of C to C
   *     channels (conv2, conv3, ...); 0, as read from the JSON of checkpoints written before the
   *     field existed, means 2
   * @param crop the maps after conv1 cover only the 8 x 8 interior of the board (false: all 10 x 10
   *     cells): every Boxoban level has a wall border, so the outer ring of cells is the same in every
   *     observation; conv1 still reads it (its interior outputs are those of the whole-board conv1),
   *     the later convolutions pad the 8 x 8 maps with zeros, and the projection reads 64 cells, not
   *     100 (about 1.4x fewer multiply-adds per step); false in checkpoints written before the field
   */
  public record Config(int channels, int hidden, int layers, int actions, long seed, int convs, boolean crop) {
    public static final Config DEFAULT = new Config(8, 64, 1, 5, 1);

    /** Two convolutions on the whole board, the policy as it was before {@code convs} existed. */
    public Config(int channels, int hidden, int layers, int actions, long seed) {
      this(channels, hidden, layers, actions, seed, 2, false);
    }

    /** The whole board (no crop), the policy as it was before {@code crop} existed. */
    public Config(int channels, int hidden, int layers, int actions, long seed, int convs) {
      this(channels, hidden, layers, actions, seed, convs, false);
    }

    public Config {
      if (convs == 0) convs = 2;
      if (convs < 2 || convs > 8) throw new UserError("conv policy config: convs must be in 2..8, got " + convs);
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
      double c = channels, h = hidden, n = crop ? (SIDE - 2) * (SIDE - 2) : P;
      return 36 * n * c + 9 * n * c * c * (convs - 1) + n * c * h + 3 * h * h * layers + (actions + 1) * h;
    }
  }

  /** Encoder activations kept between calls, for up to {@code cap} rows. */
  private static final class Acts {
    int cap;
    final boolean keepA1; // training: a1 (and the middle maps) kept for the backward pass
    float[] a1, a2, x0; // [R][PP][C] (padded, zero border), [R][NP][C] (+ V floats of slack for whole-vector reads), [R][H]
    float[][] mid = new float[0][]; // training with convs > 2: outputs of conv2 .. conv(convs-1), [R][PP][C] padded each

    Acts(boolean keepA1) {
      this.keepA1 = keepA1;
    }

    void ensure(int rows, int c, int h, int mids, int np, int npp) {
      if (rows > cap || (keepA1 && mid.length != mids)) {
        cap = Math.max(cap, rows);
        rows = cap;
        if (keepA1) {
          a1 = new float[rows * npp * c + V];
          mid = new float[mids][];
          for (int m = 0; m < mids; m++) mid[m] = new float[rows * npp * c + V];
        }
        a2 = new float[rows * np * c + V];
        x0 = new float[rows * h];
      }
    }
  }

  /** Neighbour k (0..8, row-major 3x3) of observation cell p, or -1 outside the board. */
  private static final int[] NEIGHBOUR = new int[P * 9];

  /** conv1's codes: the observation's 10 x 10 cells in a 12 x 12 frame (cell p at OBS_PAD_OF[p]). */
  private static final int OBS_SIDE_PAD = SIDE + 2, OBS_PP = OBS_SIDE_PAD * OBS_SIDE_PAD;
  private static final int[] OBS_PAD_OF = new int[P];

  static {
    for (int p = 0; p < P; p++) {
      OBS_PAD_OF[p] = (p / SIDE + 1) * OBS_SIDE_PAD + p % SIDE + 1;
      for (int k = 0; k < 9; k++) {
        int y = p / SIDE + k / 3 - 1, x = p % SIDE + k % 3 - 1;
        NEIGHBOUR[p * 9 + k] = y < 0 || y >= SIDE || x < 0 || x >= SIDE ? -1 : y * SIDE + x;
      }
    }
  }

  // The network's maps (a1 .. a2): S x S cells, 10 x 10 or, with crop, the 8 x 8 interior; NP = S^2.
  // Padded maps are (S + 2)^2 = PP cells with a zero border: map cell p sits at PAD_OF[p], tap k at
  // + OFF[k]; it is observation cell OBS_OF[p]. TAP_OUT[q * 9 + k]: the padded index of the map cell
  // whose tap k reads observation cell q (a border index where that cell is off the map), or -1 where
  // it is outside the padded frame (only with crop).
  private final boolean crop;
  private final int S, NP, SIDE_PAD, PP;
  private final int[] PAD_OF, OFF, OBS_OF, TAP_OUT;

  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final int V = F.length();
  private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
  /** Row pairs (2C = V): lane 2c + j holds channel c of row j; SPREAD takes lanes 0..C-1 there, SPLIT back. */
  private static final VectorShuffle<Float> SPREAD = VectorShuffle.fromOp(F, l -> l / 2);
  private static final VectorShuffle<Float> SPLIT = VectorShuffle.fromOp(F, l -> l < V / 2 ? 2 * l : 2 * (l - V / 2) + 1);
  private static final VectorMask<Float> ODD = VectorMask.fromLong(F, 0xAAAAAAAAAAAAAAAAL);
  private static final VectorMask<Float> LOW = F.indexInRange(0, V / 2), HIGH = LOW.not();
  /**
   * Rows per block of the backward pass (for C up to about 20; a multiple of it for more channels,
   * see {@link #block}): weight gradients are summed per block, then the blocks in order.
   */
  static final int BLOCK = 48;
  /**
   * Rows per sub-chunk inside a block: keeps a chunk's padded maps in L2, and a multiple of the
   * 6-row tile of {@link Kernels#ab} (the chunk's dLoss/da2 product).
   */
  static final int CHUNK = 12;

  private final Config cfg;
  private final int C, H, CV; // CV = C rounded up to whole vectors: the stride of the re-laid weights
  private final int NC; // number of convolutions (conv1, conv2, ... convNC)
  private final Params params = new Params();
  private final Params.Tensor c1W, c1B, c2W, c2B, pW, pB;
  private final Params.Tensor[] cmW, cmB; // conv3 .. convNC (index l - 3)
  private final DefaultPolicy core;
  private final Acts roll = new Acts(false), train = new Acts(true);
  private Workers workers = SERIAL;
  private final ParMm mm = new ParMm();
  private static final Workers SERIAL = new Workers(1);

  // Weights re-laid for the encoder, rebuilt from params by every pass (a few thousand floats, plus
  // proj's transpose): conv1 as a table over the 16 patterns of a cell's 4 planes, per tap
  // (t1[k][code][CV]), conv1 per tap and plane (w1[k][plane][CV]), conv2 per tap and input channel
  // (w2f[k][ci][CV] = conv2.weight[co][ci][k] along co), its adjoint (w2b[k][co][CV] =
  // conv2.weight[co][ci][8 - k] along ci), biases b1, b2 [CV], proj.weight^T [NP*C][H].
  private final float[] t1, w1, w2f, w2b, b1, b2;
  private final float[][] wmf, wmb, bm; // the same three for conv3 .. convNC (index l - 3)
  // With 2C = V (C = 8 on AVX-512) conv2 runs on pairs of rows so that every lane works: the
  // pair's padded map as doubles (one double = the two rows' value of a channel, broadcast as a
  // pair) against weights with each output channel twice (w2fP, w2bP [k][ci][V], b2P [V]).
  private final boolean pairs;
  private final float[] w2fP, w2bP, b2P;
  private float[] pWT = new float[0], colAcc = new float[0];
  private Scratch[] scratch = new Scratch[0];
  private float[] part = new float[0]; // [blocks][PART]: per-block weight gradients of the backward pass
  private final int PART; // w2 [9][C][CV], w1 [9][4][CV], b2 [CV], b1 [CV], then per conv3.. : w [9][C][CV], b [CV]
  private final int MID0, MIDSTRIDE; // where conv3's part starts, and each further layer's stride
  private final int block; // BLOCK times enough to keep the per-block sums near 8k floats per 48 rows
  private byte[] trainObs = new byte[0];
  private int trainRows;
  private boolean haveForward;

  // The job of the worker tasks below (set before each Workers.run).
  private Acts cur;
  private byte[] curObs;
  private final Workers.Task encodeTask = this::encodeRows, backTask = this::backwardRows;

  /** One worker's buffers: padded maps of a chunk of rows, conv1 codes, active cells. */
  private final class Scratch {
    final float[] a1 = new float[(CHUNK + 1) * PP * C + V], dz2 = new float[(CHUNK + 1) * PP * C + V];
    final float[] dz1 = new float[(CHUNK + 1) * PP * C + V], da2 = new float[CHUNK * NP * C + V];
    final int[] code = new int[OBS_PP], act = new int[OBS];
    final double[] pair = new double[PP * C + V], pairA = new double[PP * C + V];
    // convs > 2: a middle map's chunk and a second dLoss/dz buffer (backward), two padded maps of one
    // row (rollout forward, which keeps nothing).
    final float[] mid = new float[NC > 2 ? (CHUNK + 1) * PP * C + V : 0], dzM = new float[NC > 2 ? (CHUNK + 1) * PP * C + V : 0];
    final float[] f0 = new float[NC > 2 ? PP * C + V : 0], f1 = new float[NC > 2 ? PP * C + V : 0];
  }

  public ConvPolicy(Config cfg) {
    this.cfg = cfg;
    C = cfg.channels();
    H = cfg.hidden();
    NC = cfg.convs();
    CV = (C + V - 1) / V * V;
    crop = cfg.crop();
    S = crop ? SIDE - 2 : SIDE;
    NP = S * S;
    SIDE_PAD = S + 2;
    PP = SIDE_PAD * SIDE_PAD;
    PAD_OF = new int[NP];
    OBS_OF = new int[NP];
    OFF = new int[9];
    TAP_OUT = new int[P * 9];
    int shift = (SIDE - S) / 2;
    for (int p = 0; p < NP; p++) {
      PAD_OF[p] = (p / S + 1) * SIDE_PAD + p % S + 1;
      OBS_OF[p] = (p / S + shift) * SIDE + p % S + shift;
    }
    for (int k = 0; k < 9; k++) OFF[k] = (k / 3 - 1) * SIDE_PAD + k % 3 - 1;
    for (int q = 0; q < P; q++) {
      for (int k = 0; k < 9; k++) {
        int y = q / SIDE - (k / 3 - 1) - shift + 1, x = q % SIDE - (k % 3 - 1) - shift + 1; // padded coordinates
        TAP_OUT[q * 9 + k] = y < 0 || y >= SIDE_PAD || x < 0 || x >= SIDE_PAD ? -1 : y * SIDE_PAD + x;
      }
    }
    c1W = params.add("conv1.weight", C, PLANES, 3, 3);
    c1B = params.add("conv1.bias", C);
    c2W = params.add("conv2.weight", C, C, 3, 3);
    c2B = params.add("conv2.bias", C);
    cmW = new Params.Tensor[NC - 2];
    cmB = new Params.Tensor[NC - 2];
    for (int l = 3; l <= NC; l++) {
      cmW[l - 3] = params.add("conv" + l + ".weight", C, C, 3, 3);
      cmB[l - 3] = params.add("conv" + l + ".bias", C);
    }
    pW = params.add("proj.weight", H, NP * C);
    pB = params.add("proj.bias", H);
    core = new DefaultPolicy(new DefaultPolicy.Config(H, cfg.layers(), cfg.actions(), cfg.seed()), params, false);
    t1 = new float[9 * 16 * CV];
    w1 = new float[9 * PLANES * CV];
    w2f = new float[9 * C * CV];
    w2b = new float[9 * C * CV];
    b1 = new float[CV];
    b2 = new float[CV];
    wmf = new float[NC - 2][9 * C * CV];
    wmb = new float[NC - 2][9 * C * CV];
    bm = new float[NC - 2][CV];
    MID0 = 9 * C * CV + 9 * PLANES * CV + 2 * CV;
    MIDSTRIDE = 9 * C * CV + CV;
    PART = MID0 + (NC - 2) * MIDSTRIDE;
    block = BLOCK * Math.max(1, (PART + 8191) / 8192);
    pairs = 2 * C == V && NC == 2 && !crop;
    w2fP = new float[pairs ? 9 * C * V : 0];
    w2bP = new float[pairs ? 9 * C * V : 0];
    b2P = new float[pairs ? V : 0];
    Rng rng = new Rng(Rng.mix(cfg.seed(), 0xC0471L, 0));
    // He-uniform for the ReLU layers (variance 2/fan_in), biases zero.
    uniform(rng, c1W, (float) Math.sqrt(6.0 / (PLANES * 9)));
    uniform(rng, c2W, (float) Math.sqrt(6.0 / (C * 9)));
    for (Params.Tensor t : cmW) uniform(rng, t, (float) Math.sqrt(6.0 / (C * 9)));
    uniform(rng, pW, (float) Math.sqrt(6.0 / (NP * C)));
  }

  private void uniform(Rng rng, Params.Tensor t, float bound) {
    for (int i = 0; i < t.size(); i++) params.data[t.offset() + i] = (2 * rng.nextFloat() - 1) * bound;
  }

  public Config config() { return cfg; }

  @Override public int numActions() { return cfg.actions(); }
  @Override public int stateSize() { return core.stateSize(); }
  @Override public Params params() { return params; }

  /** Splits the encoder's and the core's work over {@code workers} (results do not depend on the thread count). */
  public void setWorkers(Workers workers) {
    this.workers = workers;
    core.setWorkers(workers);
  }

  private Scratch[] scratch() {
    int n = workers.threads();
    if (scratch.length < n) {
      Scratch[] s = Arrays.copyOf(scratch, n);
      for (int i = scratch.length; i < n; i++) s[i] = new Scratch();
      scratch = s;
    }
    return scratch;
  }

  /** As {@link DefaultPolicy#warmUp}: compiles the hot paths on a throwaway policy; returns seconds. */
  public static double warmUp(Config cfg, Workers workers, int iterations) {
    long t0 = System.nanoTime();
    ConvPolicy net = new ConvPolicy(cfg);
    net.setWorkers(workers);
    PolicyNet.exercise(net, 2, 4 * BLOCK / 2, iterations);
    return (System.nanoTime() - t0) / 1e9;
  }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    roll.ensure(n, C, H, NC - 2, NP, PP);
    encode(roll, obs, n);
    core.stepFrom(roll.x0, n, state, logits, values);
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    int rows = t * b;
    train.ensure(rows, C, H, NC - 2, NP, PP);
    if (trainObs.length < rows * OBS) trainObs = new byte[rows * OBS];
    System.arraycopy(obs, 0, trainObs, 0, rows * OBS); // conv1's weight gradients gather from it
    encode(train, obs, rows);
    core.forwardFrom(train.x0, resetBefore, h0, t, b, logits, values);
    trainRows = rows;
    haveForward = true;
  }

  /** Package-private for tests: the feature map a2 [n][NP*C] and x0 [n][H] of a rollout step's encoder. */
  float[][] encodeForTest(byte[] obs, int n) {
    roll.ensure(n, C, H, NC - 2, NP, PP);
    encode(roll, obs, n);
    return new float[][] {Arrays.copyOf(roll.a2, n * NP * C), Arrays.copyOf(roll.x0, n * H)};
  }

  /** obs [R][4][P] -> a2, x0 of {@code s}: the convolutions split over workers by rows, then proj. */
  private void encode(Acts s, byte[] obs, int rows) {
    relayForward();
    scratch();
    cur = s;
    curObs = obs;
    workers.run(encodeTask, rows, 4);
    cur = null;
    curObs = null;
    float[] w = params.data;
    for (int r = 0; r < rows; r++) System.arraycopy(w, pB.offset(), s.x0, r * H, H);
    mm.ab(workers, s.a2, 0, pWT, 0, s.x0, 0, rows, H, NP * C, true);
    relu(s.x0, 0, rows * H);
  }

  /** Rebuilds t1, w1, w2f, b1, b2 and pWT from params. */
  private void relayForward() {
    float[] w = params.data;
    int o1 = c1W.offset(), o2 = c2W.offset();
    Arrays.fill(t1, 0f);
    for (int k = 0; k < 9; k++) {
      for (int c = 0; c < C; c++) {
        for (int pl = 0; pl < PLANES; pl++) w1[(k * PLANES + pl) * CV + c] = w[o1 + (c * PLANES + pl) * 9 + k];
        for (int code = 1; code < 16; code++) {
          float acc = 0f;
          for (int pl = 0; pl < PLANES; pl++) if ((code >> pl & 1) != 0) acc += w[o1 + (c * PLANES + pl) * 9 + k];
          t1[(k * 16 + code) * CV + c] = acc;
        }
        for (int ci = 0; ci < C; ci++) w2f[(k * C + ci) * CV + c] = w[o2 + (c * C + ci) * 9 + k];
      }
    }
    System.arraycopy(w, c1B.offset(), b1, 0, C);
    System.arraycopy(w, c2B.offset(), b2, 0, C);
    for (int m = 0; m < NC - 2; m++) {
      int om = cmW[m].offset();
      for (int k = 0; k < 9; k++) {
        for (int c = 0; c < C; c++) for (int ci = 0; ci < C; ci++) wmf[m][(k * C + ci) * CV + c] = w[om + (c * C + ci) * 9 + k];
      }
      System.arraycopy(w, cmB[m].offset(), bm[m], 0, C);
    }
    if (pairs) {
      for (int i = 0; i < 9 * C; i++) for (int c = 0; c < V; c++) w2fP[i * V + c] = w2f[i * CV + c / 2];
      for (int c = 0; c < V; c++) b2P[c] = b2[c / 2];
    }
    int pc = NP * C;
    if (pWT.length < pc * H) pWT = new float[pc * H];
    transpose(w, pW.offset(), H, pc, pWT);
  }

  /** dst[c][r] = src[off + r*cols + c] for a [rows][cols] matrix. */
  private static void transpose(float[] src, int off, int rows, int cols, float[] dst) {
    for (int r0 = 0; r0 < rows; r0 += 16) {
      int r1 = Math.min(rows, r0 + 16);
      for (int c0 = 0; c0 < cols; c0 += 16) {
        int c1 = Math.min(cols, c0 + 16);
        for (int r = r0; r < r1; r++) for (int c = c0; c < c1; c++) dst[c * rows + r] = src[off + r * cols + c];
      }
    }
  }

  /** Worker task: conv1 and conv2 of rows [r0, r1), one row at a time through the worker's padded a1. */
  private void encodeRows(int worker, int r0, int r1) {
    Scratch sc = scratch[worker];
    Acts s = cur;
    float[] a1 = s.keepA1 ? s.a1 : sc.a1;
    int r = r0;
    if (pairs) {
      for (; r + 1 < r1; r += 2) {
        int o = s.keepA1 ? r * PP * C : 0;
        conv1Row(curObs, r, sc, a1, o);
        conv1Row(curObs, r + 1, sc, a1, o + PP * C);
        zip(a1, o, sc.pair);
        for (int y = 0; y < S; y++) convTilePair(sc.pair, w2fP, y, b2P, s.a2, r * NP * C, (r + 1) * NP * C, null, 0, 0);
      }
    }
    for (; r < r1; r++) {
      int o = s.keepA1 ? r * PP * C : 0;
      conv1Row(curObs, r, sc, a1, o);
      float[] in = a1;
      int io = o;
      // conv2 .. convNC: each but the last into a padded map (kept for training), the last into a2.
      for (int l = 2; l <= NC; l++) {
        float[] w = l == 2 ? w2f : wmf[l - 3], b = l == 2 ? b2 : bm[l - 3];
        boolean last = l == NC;
        float[] out = last ? s.a2 : s.keepA1 ? s.mid[l - 2] : (l % 2 == 0 ? sc.f0 : sc.f1);
        int oo = last ? r * NP * C : s.keepA1 ? r * PP * C : 0;
        convMap(in, io, w, b, out, oo, !last, null, 0);
        in = out;
        io = oo;
      }
    }
  }

  /**
   * a1 (padded, [PP][C] at {@code ao}; its border is left alone) = relu(conv1(obs row r) + b1). Rows of
   * 0/1 bytes (all observations) take the table path: 9 vector adds per cell, t1[k][code of the
   * neighbour]; other bytes take the general path (a multiply-add per non-zero plane and tap).
   */
  private void conv1Row(byte[] obs, int r, Scratch sc, float[] a1, int ao) {
    int ob = r * OBS;
    int[] code = sc.code; // the observation's cells in their 12 x 12 frame, whose border stays 0 (an all-zero table row)
    int bad = 0;
    for (int p = 0; p < P; p++) {
      int v0 = obs[ob + p], v1 = obs[ob + P + p], v2 = obs[ob + 2 * P + p], v3 = obs[ob + 3 * P + p];
      bad |= v0 | v1 | v2 | v3;
      code[OBS_PAD_OF[p]] = (v0 | v1 << 1 | v2 << 2 | v3 << 3) * CV;
    }
    if ((bad & ~1) == 0) {
      for (int j = 0; j < C; j += V) {
        VectorMask<Float> m = F.indexInRange(j, C);
        FloatVector bias = FloatVector.fromArray(F, b1, j);
        int t = 16 * CV;
        for (int p = 0; p < NP; p++) {
          // Taps by rows of the 3x3 window, three partial sums (shorter add chains).
          int q = OBS_PAD_OF[OBS_OF[p]], u = q - OBS_SIDE_PAD, d = q + OBS_SIDE_PAD;
          FloatVector s0 = bias.add(FloatVector.fromArray(F, t1, code[u - 1] + j))
              .add(FloatVector.fromArray(F, t1, t + code[u] + j)).add(FloatVector.fromArray(F, t1, 2 * t + code[u + 1] + j));
          FloatVector s1 = FloatVector.fromArray(F, t1, 3 * t + code[q - 1] + j)
              .add(FloatVector.fromArray(F, t1, 4 * t + code[q] + j)).add(FloatVector.fromArray(F, t1, 5 * t + code[q + 1] + j));
          FloatVector s2 = FloatVector.fromArray(F, t1, 6 * t + code[d - 1] + j)
              .add(FloatVector.fromArray(F, t1, 7 * t + code[d] + j)).add(FloatVector.fromArray(F, t1, 8 * t + code[d + 1] + j));
          s0.add(s1).add(s2).max(0f).intoArray(a1, ao + PAD_OF[p] * C + j, m);
        }
      }
    } else {
      for (int j = 0; j < C; j += V) {
        VectorMask<Float> m = F.indexInRange(j, C);
        for (int p = 0; p < NP; p++) {
          FloatVector acc = FloatVector.fromArray(F, b1, j);
          for (int k = 0; k < 9; k++) {
            int nb = NEIGHBOUR[OBS_OF[p] * 9 + k];
            if (nb < 0) continue;
            for (int pl = 0; pl < PLANES; pl++) {
              int v = obs[ob + pl * P + nb];
              if (v != 0) acc = FloatVector.broadcast(F, (float) v).fma(FloatVector.fromArray(F, w1, (k * PLANES + pl) * CV + j), acc);
            }
          }
          acc.max(0f).intoArray(a1, ao + PAD_OF[p] * C + j, m);
        }
      }
    }
  }

  /**
   * A whole map of a 3x3 convolution: {@link #convTile} (10 cells a row) or, on the crop's 8 x 8
   * maps, {@link #convTile8}, for every row y and vector of output channels j.
   */
  private void convMap(float[] in, int io, float[] w, float[] bias, float[] out, int oo, boolean padOut, float[] mask, int mo) {
    for (int j = 0; j < C; j += V) {
      for (int y = 0; y < S; y++) {
        if (S == SIDE) convTile(in, io, w, j, y, bias, out, oo, padOut, mask, mo);
        else convTile8(in, io, w, j, y, bias, out, oo, padOut, mask, mo);
      }
    }
  }

  /**
   * One board row y (10 cells) of a 3x3 convolution over a padded channels-last map, output channels
   * [j, j + V): acc[x] = bias + sum_k sum_ci in[pad(y, x) + OFF[k]][ci] * w[k][ci][j...], ten
   * accumulators so each weight vector load feeds ten FMAs. With {@code mask} null the output is
   * relu(acc), written at {@code oo} unpadded ([P][C]) or, with {@code padOut}, padded ([PP][C], the
   * input of a further convolution); otherwise it is acc where mask[...] > 0 (the ReLU's derivative)
   * else 0, written padded ([PP][C]) at {@code oo}, the mask read from the padded map at {@code mo}.
   */
  private void convTile(float[] in, int io, float[] w, int j, int y, float[] bias, float[] out, int oo, boolean padOut,
      float[] mask, int mo) {
    int c = C, cv = CV;
    FloatVector init = bias == null ? FloatVector.zero(F) : FloatVector.fromArray(F, bias, j);
    FloatVector s0 = init, s1 = init, s2 = init, s3 = init, s4 = init, s5 = init, s6 = init, s7 = init, s8 = init, s9 = init;
    int base = io + ((y + 1) * SIDE_PAD + 1) * c;
    for (int k = 0; k < 9; k++) {
      int kb = base + OFF[k] * c, wk = k * c * cv + j;
      for (int ci = 0; ci < c; ci++) {
        FloatVector wv = FloatVector.fromArray(F, w, wk + ci * cv);
        int i = kb + ci;
        s0 = FloatVector.broadcast(F, in[i]).fma(wv, s0);
        s1 = FloatVector.broadcast(F, in[i + c]).fma(wv, s1);
        s2 = FloatVector.broadcast(F, in[i + 2 * c]).fma(wv, s2);
        s3 = FloatVector.broadcast(F, in[i + 3 * c]).fma(wv, s3);
        s4 = FloatVector.broadcast(F, in[i + 4 * c]).fma(wv, s4);
        s5 = FloatVector.broadcast(F, in[i + 5 * c]).fma(wv, s5);
        s6 = FloatVector.broadcast(F, in[i + 6 * c]).fma(wv, s6);
        s7 = FloatVector.broadcast(F, in[i + 7 * c]).fma(wv, s7);
        s8 = FloatVector.broadcast(F, in[i + 8 * c]).fma(wv, s8);
        s9 = FloatVector.broadcast(F, in[i + 9 * c]).fma(wv, s9);
      }
    }
    VectorMask<Float> m = F.indexInRange(j, c);
    if (mask == null) {
      int o = oo + (padOut ? ((y + 1) * SIDE_PAD + 1) * c : y * S * c) + j;
      s0.max(0f).intoArray(out, o, m);
      s1.max(0f).intoArray(out, o + c, m);
      s2.max(0f).intoArray(out, o + 2 * c, m);
      s3.max(0f).intoArray(out, o + 3 * c, m);
      s4.max(0f).intoArray(out, o + 4 * c, m);
      s5.max(0f).intoArray(out, o + 5 * c, m);
      s6.max(0f).intoArray(out, o + 6 * c, m);
      s7.max(0f).intoArray(out, o + 7 * c, m);
      s8.max(0f).intoArray(out, o + 8 * c, m);
      s9.max(0f).intoArray(out, o + 9 * c, m);
    } else {
      // Written out rather than through a helper taking the vector: when such a helper is not
      // inlined (C2 declines callees already compiled big), every call boxes its vector, which was
      // 97% of the training run's allocations (about 600 MB/s) and slowed this backward tile.
      int d = ((y + 1) * SIDE_PAD + 1) * c + j, o = oo + d, g = mo + d;
      s0.blend(0f, FloatVector.fromArray(F, mask, g).compare(VectorOperators.LE, 0f)).intoArray(out, o, m);
      s1.blend(0f, FloatVector.fromArray(F, mask, g + c).compare(VectorOperators.LE, 0f)).intoArray(out, o + c, m);
      s2.blend(0f, FloatVector.fromArray(F, mask, g + 2 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 2 * c, m);
      s3.blend(0f, FloatVector.fromArray(F, mask, g + 3 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 3 * c, m);
      s4.blend(0f, FloatVector.fromArray(F, mask, g + 4 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 4 * c, m);
      s5.blend(0f, FloatVector.fromArray(F, mask, g + 5 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 5 * c, m);
      s6.blend(0f, FloatVector.fromArray(F, mask, g + 6 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 6 * c, m);
      s7.blend(0f, FloatVector.fromArray(F, mask, g + 7 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 7 * c, m);
      s8.blend(0f, FloatVector.fromArray(F, mask, g + 8 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 8 * c, m);
      s9.blend(0f, FloatVector.fromArray(F, mask, g + 9 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 9 * c, m);
    }
  }

  /**
   * {@link #convTile} for a row of 8 cells (the crop's maps): eight accumulators. Written out as a
   * copy rather than sharing a helper: the accumulators must stay in registers (a vector passed to a
   * callee C2 does not inline is boxed; see the note in convTile's backward branch).
   */
  private void convTile8(float[] in, int io, float[] w, int j, int y, float[] bias, float[] out, int oo, boolean padOut,
      float[] mask, int mo) {
    int c = C, cv = CV;
    FloatVector init = bias == null ? FloatVector.zero(F) : FloatVector.fromArray(F, bias, j);
    FloatVector s0 = init, s1 = init, s2 = init, s3 = init, s4 = init, s5 = init, s6 = init, s7 = init;
    int base = io + ((y + 1) * SIDE_PAD + 1) * c;
    for (int k = 0; k < 9; k++) {
      int kb = base + OFF[k] * c, wk = k * c * cv + j;
      for (int ci = 0; ci < c; ci++) {
        FloatVector wv = FloatVector.fromArray(F, w, wk + ci * cv);
        int i = kb + ci;
        s0 = FloatVector.broadcast(F, in[i]).fma(wv, s0);
        s1 = FloatVector.broadcast(F, in[i + c]).fma(wv, s1);
        s2 = FloatVector.broadcast(F, in[i + 2 * c]).fma(wv, s2);
        s3 = FloatVector.broadcast(F, in[i + 3 * c]).fma(wv, s3);
        s4 = FloatVector.broadcast(F, in[i + 4 * c]).fma(wv, s4);
        s5 = FloatVector.broadcast(F, in[i + 5 * c]).fma(wv, s5);
        s6 = FloatVector.broadcast(F, in[i + 6 * c]).fma(wv, s6);
        s7 = FloatVector.broadcast(F, in[i + 7 * c]).fma(wv, s7);
      }
    }
    VectorMask<Float> m = F.indexInRange(j, c);
    if (mask == null) {
      int o = oo + (padOut ? ((y + 1) * SIDE_PAD + 1) * c : y * S * c) + j;
      s0.max(0f).intoArray(out, o, m);
      s1.max(0f).intoArray(out, o + c, m);
      s2.max(0f).intoArray(out, o + 2 * c, m);
      s3.max(0f).intoArray(out, o + 3 * c, m);
      s4.max(0f).intoArray(out, o + 4 * c, m);
      s5.max(0f).intoArray(out, o + 5 * c, m);
      s6.max(0f).intoArray(out, o + 6 * c, m);
      s7.max(0f).intoArray(out, o + 7 * c, m);
    } else {
      int d = ((y + 1) * SIDE_PAD + 1) * c + j, o = oo + d, g = mo + d;
      s0.blend(0f, FloatVector.fromArray(F, mask, g).compare(VectorOperators.LE, 0f)).intoArray(out, o, m);
      s1.blend(0f, FloatVector.fromArray(F, mask, g + c).compare(VectorOperators.LE, 0f)).intoArray(out, o + c, m);
      s2.blend(0f, FloatVector.fromArray(F, mask, g + 2 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 2 * c, m);
      s3.blend(0f, FloatVector.fromArray(F, mask, g + 3 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 3 * c, m);
      s4.blend(0f, FloatVector.fromArray(F, mask, g + 4 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 4 * c, m);
      s5.blend(0f, FloatVector.fromArray(F, mask, g + 5 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 5 * c, m);
      s6.blend(0f, FloatVector.fromArray(F, mask, g + 6 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 6 * c, m);
      s7.blend(0f, FloatVector.fromArray(F, mask, g + 7 * c).compare(VectorOperators.LE, 0f)).intoArray(out, o + 7 * c, m);
    }
  }

  /** pair[q*C + c] = (map[o + q*C + c], map[o + PP*C + q*C + c]) as the two floats of a double, all PP cells. */
  private void zip(float[] map, int o, double[] pair) {
    int second = o + PP * C;
    for (int q = 0; q < PP; q++) {
      FloatVector a = FloatVector.fromArray(F, map, o + q * C).rearrange(SPREAD);
      FloatVector b = FloatVector.fromArray(F, map, second + q * C).rearrange(SPREAD);
      a.blend(b, ODD).reinterpretAsDoubles().intoArray(pair, q * C);
    }
  }

  /**
   * {@link #convTile} for a pair of rows (2C = V): lane 2c + j of an accumulator is output channel c
   * of row j. Forward ({@code gate} null): relu, rows written unpadded at o0 and o1. Backward: gated
   * by the padded maps at g0, g1 of {@code gate}, written padded at o0, o1.
   */
  private void convTilePair(double[] in, float[] w, int y, float[] bias, float[] out, int o0, int o1, float[] gate, int g0, int g1) {
    int c = C;
    FloatVector init = bias == null ? FloatVector.zero(F) : FloatVector.fromArray(F, bias, 0);
    FloatVector s0 = init, s1 = init, s2 = init, s3 = init, s4 = init, s5 = init, s6 = init, s7 = init, s8 = init, s9 = init;
    int base = ((y + 1) * SIDE_PAD + 1) * c;
    for (int k = 0; k < 9; k++) {
      int kb = base + OFF[k] * c, wk = k * c * V;
      for (int ci = 0; ci < c; ci++) {
        FloatVector wv = FloatVector.fromArray(F, w, wk + ci * V);
        int i = kb + ci;
        s0 = DoubleVector.broadcast(D, in[i]).reinterpretAsFloats().fma(wv, s0);
        s1 = DoubleVector.broadcast(D, in[i + c]).reinterpretAsFloats().fma(wv, s1);
        s2 = DoubleVector.broadcast(D, in[i + 2 * c]).reinterpretAsFloats().fma(wv, s2);
        s3 = DoubleVector.broadcast(D, in[i + 3 * c]).reinterpretAsFloats().fma(wv, s3);
        s4 = DoubleVector.broadcast(D, in[i + 4 * c]).reinterpretAsFloats().fma(wv, s4);
        s5 = DoubleVector.broadcast(D, in[i + 5 * c]).reinterpretAsFloats().fma(wv, s5);
        s6 = DoubleVector.broadcast(D, in[i + 6 * c]).reinterpretAsFloats().fma(wv, s6);
        s7 = DoubleVector.broadcast(D, in[i + 7 * c]).reinterpretAsFloats().fma(wv, s7);
        s8 = DoubleVector.broadcast(D, in[i + 8 * c]).reinterpretAsFloats().fma(wv, s8);
        s9 = DoubleVector.broadcast(D, in[i + 9 * c]).reinterpretAsFloats().fma(wv, s9);
      }
    }
    if (gate == null) {
      int d = y * S * c;
      splitOut(s0, out, o0 + d, o1 + d); splitOut(s1, out, o0 + d + c, o1 + d + c);
      splitOut(s2, out, o0 + d + 2 * c, o1 + d + 2 * c); splitOut(s3, out, o0 + d + 3 * c, o1 + d + 3 * c);
      splitOut(s4, out, o0 + d + 4 * c, o1 + d + 4 * c); splitOut(s5, out, o0 + d + 5 * c, o1 + d + 5 * c);
      splitOut(s6, out, o0 + d + 6 * c, o1 + d + 6 * c); splitOut(s7, out, o0 + d + 7 * c, o1 + d + 7 * c);
      splitOut(s8, out, o0 + d + 8 * c, o1 + d + 8 * c); splitOut(s9, out, o0 + d + 9 * c, o1 + d + 9 * c);
    } else {
      int d = base;
      splitGate(s0, out, gate, o0 + d, o1 + d, g0 + d, g1 + d);
      splitGate(s1, out, gate, o0 + d + c, o1 + d + c, g0 + d + c, g1 + d + c);
      splitGate(s2, out, gate, o0 + d + 2 * c, o1 + d + 2 * c, g0 + d + 2 * c, g1 + d + 2 * c);
      splitGate(s3, out, gate, o0 + d + 3 * c, o1 + d + 3 * c, g0 + d + 3 * c, g1 + d + 3 * c);
      splitGate(s4, out, gate, o0 + d + 4 * c, o1 + d + 4 * c, g0 + d + 4 * c, g1 + d + 4 * c);
      splitGate(s5, out, gate, o0 + d + 5 * c, o1 + d + 5 * c, g0 + d + 5 * c, g1 + d + 5 * c);
      splitGate(s6, out, gate, o0 + d + 6 * c, o1 + d + 6 * c, g0 + d + 6 * c, g1 + d + 6 * c);
      splitGate(s7, out, gate, o0 + d + 7 * c, o1 + d + 7 * c, g0 + d + 7 * c, g1 + d + 7 * c);
      splitGate(s8, out, gate, o0 + d + 8 * c, o1 + d + 8 * c, g0 + d + 8 * c, g1 + d + 8 * c);
      splitGate(s9, out, gate, o0 + d + 9 * c, o1 + d + 9 * c, g0 + d + 9 * c, g1 + d + 9 * c);
    }
  }

  /** relu of a pair accumulator, row 0's channels to out[a...], row 1's to out[b...]. */
  private static void splitOut(FloatVector s, float[] out, int a, int b) {
    FloatVector u = s.max(0f).rearrange(SPLIT);
    u.intoArray(out, a, LOW);
    u.intoArray(out, b - V / 2, HIGH);
  }

  /** A pair accumulator gated by gate > 0 (each row its own map), to out[a...] and out[b...]. */
  private static void splitGate(FloatVector s, float[] out, float[] gate, int a, int b, int ga, int gb) {
    FloatVector u = s.rearrange(SPLIT);
    u.blend(0f, FloatVector.fromArray(F, gate, ga).compare(VectorOperators.LE, 0f)).intoArray(out, a, LOW);
    u.blend(0f, FloatVector.fromArray(F, gate, gb - V / 2).compare(VectorOperators.LE, 0f)).intoArray(out, b - V / 2, HIGH);
  }

  private static void relu(float[] v, int off, int n) {
    for (int i = off; i < off + n; i++) v[i] = Math.max(v[i], 0f);
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    if (!haveForward) throw new IllegalStateException("backward without forward");
    core.backward(dLogits, dValues);
    Acts s = train;
    int rows = trainRows, pc = NP * C;
    float[] g = params.grad;
    // proj: through x0's ReLU (in place in the core's scratch, which it no longer needs).
    float[] dx0 = core.inputGrad();
    for (int i = 0; i < rows * H; i++) if (s.x0[i] <= 0f) dx0[i] = 0f;
    mm.atb(workers, dx0, 0, s.a2, 0, g, pW.offset(), H, pc, rows, true);
    if (colAcc.length < H) colAcc = new float[H];
    Kernels.colSum(dx0, rows, H, g, pB.offset(), colAcc);
    // conv2 and conv1 per block of rows (dLoss/da2 = dx0 . proj.weight computed per chunk inside),
    // weight gradients per block, then summed over blocks in order: the same bits at every thread count.
    relayBackward();
    scratch();
    int blocks = (rows + block - 1) / block;
    if (part.length < blocks * PART) part = new float[blocks * PART];
    Arrays.fill(part, 0, blocks * PART, 0f);
    cur = s;
    workers.run(backTask, rows, block);
    cur = null;
    float[] sum = new float[PART];
    for (int bl = 0; bl < blocks; bl++) {
      int o = bl * PART;
      for (int i = 0; i < PART; i++) sum[i] += part[o + i];
    }
    int o2 = c2W.offset(), o1 = c1W.offset(), w1o = 9 * C * CV, bo = w1o + 9 * PLANES * CV;
    for (int k = 0; k < 9; k++) {
      for (int ci = 0; ci < C; ci++) {
        for (int co = 0; co < C; co++) {
          int i = (k * C + ci) * CV;
          g[o2 + (co * C + ci) * 9 + k] += pairs ? sum[i + 2 * co] + sum[i + 2 * co + 1] : sum[i + co];
        }
      }
      for (int pl = 0; pl < PLANES; pl++) for (int c = 0; c < C; c++) g[o1 + (c * PLANES + pl) * 9 + k] += sum[w1o + (k * PLANES + pl) * CV + c];
    }
    for (int c = 0; c < C; c++) {
      g[c2B.offset() + c] += pairs ? sum[bo + 2 * c] + sum[bo + 2 * c + 1] : sum[bo + c];
      g[c1B.offset() + c] += sum[bo + CV + c];
    }
    for (int m = 0; m < NC - 2; m++) {
      int om = cmW[m].offset(), q = MID0 + m * MIDSTRIDE;
      for (int k = 0; k < 9; k++) {
        for (int ci = 0; ci < C; ci++) for (int co = 0; co < C; co++) g[om + (co * C + ci) * 9 + k] += sum[q + (k * C + ci) * CV + co];
      }
      for (int c = 0; c < C; c++) g[cmB[m].offset() + c] += sum[q + 9 * C * CV + c];
    }
  }

  /** Rebuilds w2b and w2bP (conv2's adjoint: flipped taps, channels swapped) from params. */
  private void relayBackward() {
    float[] w = params.data;
    int o2 = c2W.offset();
    for (int k = 0; k < 9; k++) {
      for (int co = 0; co < C; co++) for (int ci = 0; ci < C; ci++) w2b[(k * C + co) * CV + ci] = w[o2 + (co * C + ci) * 9 + 8 - k];
    }
    if (pairs) for (int i = 0; i < 9 * C; i++) for (int c = 0; c < V; c++) w2bP[i * V + c] = w2b[i * CV + c / 2];
    for (int m = 0; m < NC - 2; m++) {
      int om = cmW[m].offset();
      for (int k = 0; k < 9; k++) {
        for (int co = 0; co < C; co++) for (int ci = 0; ci < C; ci++) wmb[m][(k * C + co) * CV + ci] = w[om + (co * C + ci) * 9 + 8 - k];
      }
    }
  }

  /** Worker task: rows [r0, r1) (whole blocks but the last) of the encoder's backward pass. */
  private void backwardRows(int worker, int r0, int r1) {
    Scratch sc = scratch[worker];
    Acts s = cur;
    float[] dx0 = core.inputGrad(), w = params.data;
    int pc = NP * C;
    for (int c0 = r0; c0 < r1; c0 += CHUNK) {
      int n = Math.min(CHUNK, r1 - c0), po = (c0 / block) * PART;
      // dLoss/da2 for the chunk, through a2's ReLU into the padded dz2; a1 copied next to it.
      Kernels.ab(dx0, c0 * H, w, pW.offset(), sc.da2, 0, n, pc, H, false);
      System.arraycopy(s.a1, c0 * PP * C, sc.a1, 0, n * PP * C); // conv1's output, kept by the forward pass
      for (int i = 0; i < n; i++) {
        int zo = i * PP * C, so = (c0 + i) * pc, dao = i * pc;
        for (int j = 0; j < C; j += V) {
          VectorMask<Float> m = F.indexInRange(j, C);
          for (int p = 0; p < NP; p++) {
            FloatVector d = FloatVector.fromArray(F, sc.da2, dao + p * C + j);
            d.blend(0f, FloatVector.fromArray(F, s.a2, so + p * C + j).compare(VectorOperators.LE, 0f))
                .intoArray(sc.dz2, zo + PAD_OF[p] * C + j, m);
          }
        }
      }
      if (pairs) {
        // Pairs of rows; an odd last row pairs with an all-zero one (zero gradients, zero gate).
        if (n % 2 != 0) {
          Arrays.fill(sc.dz2, n * PP * C, (n + 1) * PP * C, 0f);
          Arrays.fill(sc.a1, n * PP * C, (n + 1) * PP * C, 0f);
        }
        for (int i = 0; i < n; i += 2) {
          int z0 = i * PP * C;
          zip(sc.dz2, z0, sc.pair);
          zip(sc.a1, z0, sc.pairA);
          conv2WeightGradPair(sc, po);
          // dLoss/da1 = conv2's adjoint of dz2, through a1's ReLU, into the padded dz1.
          for (int y = 0; y < S; y++) convTilePair(sc.pair, w2bP, y, null, sc.dz1, z0, z0 + PP * C, sc.a1, z0, z0 + PP * C);
        }
      } else {
        // convNC .. conv3 (convs > 2): weight gradients against the kept input map, then dLoss/dz of
        // that map (the adjoint through its ReLU), alternating between dz2 and dzM.
        float[] dz = sc.dz2;
        for (int l = NC; l >= 3; l--) {
          System.arraycopy(s.mid[l - 3], c0 * PP * C, sc.mid, 0, n * PP * C); // conv(l-1)'s output
          int q = po + MID0 + (l - 3) * MIDSTRIDE;
          convWeightGrad(sc.mid, dz, n, q, q + 9 * C * CV);
          float[] next = dz == sc.dz2 ? sc.dzM : sc.dz2;
          for (int i = 0; i < n; i++) {
            int zo = i * PP * C;
            convMap(dz, zo, wmb[l - 3], null, next, zo, true, sc.mid, zo);
          }
          dz = next;
        }
        convWeightGrad(sc.a1, dz, n, po, po + 9 * C * CV + 9 * PLANES * CV);
        for (int i = 0; i < n; i++) {
          int zo = i * PP * C;
          convMap(dz, zo, w2b, null, sc.dz1, zo, true, sc.a1, zo);
        }
      }
      conv1WeightGrad(sc, c0, n, po + 9 * C * CV);
    }
  }

  /**
   * The weight gradient of a C-to-C convolution over a chunk of n rows: part[wq + (k C + ci) CV + co]
   * += sum over the cells of in[cell + OFF[k]][ci] * dz[cell][co] (both padded maps), and
   * part[bq + co] += sum of dz: eight input channels at a time (eight accumulators along co).
   */
  private void convWeightGrad(float[] a1, float[] dz, int n, int wq, int bq) {
    int c = C, cv = CV;
    for (int j = 0; j < c; j += V) {
      for (int k = 0; k < 9; k++) {
        int ci = 0;
        for (; ci + 8 <= c; ci += 8) {
          int q = wq + (k * c + ci) * cv + j;
          FloatVector s0 = FloatVector.fromArray(F, part, q), s1 = FloatVector.fromArray(F, part, q + cv);
          FloatVector s2 = FloatVector.fromArray(F, part, q + 2 * cv), s3 = FloatVector.fromArray(F, part, q + 3 * cv);
          FloatVector s4 = FloatVector.fromArray(F, part, q + 4 * cv), s5 = FloatVector.fromArray(F, part, q + 5 * cv);
          FloatVector s6 = FloatVector.fromArray(F, part, q + 6 * cv), s7 = FloatVector.fromArray(F, part, q + 7 * cv);
          for (int i = 0; i < n; i++) {
            int zo = i * PP * c;
            for (int p = 0; p < NP; p++) {
              int cell = zo + PAD_OF[p] * c;
              FloatVector d = FloatVector.fromArray(F, dz, cell + j);
              int a = cell + OFF[k] * c + ci;
              s0 = FloatVector.broadcast(F, a1[a]).fma(d, s0);
              s1 = FloatVector.broadcast(F, a1[a + 1]).fma(d, s1);
              s2 = FloatVector.broadcast(F, a1[a + 2]).fma(d, s2);
              s3 = FloatVector.broadcast(F, a1[a + 3]).fma(d, s3);
              s4 = FloatVector.broadcast(F, a1[a + 4]).fma(d, s4);
              s5 = FloatVector.broadcast(F, a1[a + 5]).fma(d, s5);
              s6 = FloatVector.broadcast(F, a1[a + 6]).fma(d, s6);
              s7 = FloatVector.broadcast(F, a1[a + 7]).fma(d, s7);
            }
          }
          s0.intoArray(part, q); s1.intoArray(part, q + cv); s2.intoArray(part, q + 2 * cv); s3.intoArray(part, q + 3 * cv);
          s4.intoArray(part, q + 4 * cv); s5.intoArray(part, q + 5 * cv); s6.intoArray(part, q + 6 * cv); s7.intoArray(part, q + 7 * cv);
        }
        for (; ci < c; ci++) {
          int q = wq + (k * c + ci) * cv + j;
          FloatVector s0 = FloatVector.fromArray(F, part, q);
          for (int i = 0; i < n; i++) {
            int zo = i * PP * c;
            for (int p = 0; p < NP; p++) {
              int cell = zo + PAD_OF[p] * c;
              s0 = FloatVector.broadcast(F, a1[cell + OFF[k] * c + ci]).fma(FloatVector.fromArray(F, dz, cell + j), s0);
            }
          }
          s0.intoArray(part, q);
        }
      }
      int q = bq + j;
      FloatVector b = FloatVector.fromArray(F, part, q);
      for (int i = 0; i < n; i++) {
        int zo = i * PP * c;
        for (int p = 0; p < NP; p++) b = b.add(FloatVector.fromArray(F, dz, zo + PAD_OF[p] * c + j));
      }
      b.intoArray(part, q);
    }
  }

  /**
   * {@link #conv2WeightGrad} for the row pair in sc.pairA (a1) and sc.pair (dz2): lane 2co + j of
   * part[w2][k][ci] and part[b2] sums row j's products (the lanes of a pair are added at the end).
   */
  private void conv2WeightGradPair(Scratch sc, int po) {
    int c = C;
    double[] a1 = sc.pairA, dz = sc.pair;
    for (int k = 0; k < 9; k++) {
      for (int ci = 0; ci < c; ci += 8) { // 2C = V is a multiple of 8 (V >= 16 here)
        int q = po + (k * c + ci) * V;
        FloatVector s0 = FloatVector.fromArray(F, part, q), s1 = FloatVector.fromArray(F, part, q + V);
        FloatVector s2 = FloatVector.fromArray(F, part, q + 2 * V), s3 = FloatVector.fromArray(F, part, q + 3 * V);
        FloatVector s4 = FloatVector.fromArray(F, part, q + 4 * V), s5 = FloatVector.fromArray(F, part, q + 5 * V);
        FloatVector s6 = FloatVector.fromArray(F, part, q + 6 * V), s7 = FloatVector.fromArray(F, part, q + 7 * V);
        for (int p = 0; p < NP; p++) {
          int cell = PAD_OF[p] * c;
          FloatVector d = DoubleVector.fromArray(D, dz, cell).reinterpretAsFloats();
          int a = cell + OFF[k] * c + ci;
          s0 = DoubleVector.broadcast(D, a1[a]).reinterpretAsFloats().fma(d, s0);
          s1 = DoubleVector.broadcast(D, a1[a + 1]).reinterpretAsFloats().fma(d, s1);
          s2 = DoubleVector.broadcast(D, a1[a + 2]).reinterpretAsFloats().fma(d, s2);
          s3 = DoubleVector.broadcast(D, a1[a + 3]).reinterpretAsFloats().fma(d, s3);
          s4 = DoubleVector.broadcast(D, a1[a + 4]).reinterpretAsFloats().fma(d, s4);
          s5 = DoubleVector.broadcast(D, a1[a + 5]).reinterpretAsFloats().fma(d, s5);
          s6 = DoubleVector.broadcast(D, a1[a + 6]).reinterpretAsFloats().fma(d, s6);
          s7 = DoubleVector.broadcast(D, a1[a + 7]).reinterpretAsFloats().fma(d, s7);
        }
        s0.intoArray(part, q); s1.intoArray(part, q + V); s2.intoArray(part, q + 2 * V); s3.intoArray(part, q + 3 * V);
        s4.intoArray(part, q + 4 * V); s5.intoArray(part, q + 5 * V); s6.intoArray(part, q + 6 * V); s7.intoArray(part, q + 7 * V);
      }
    }
    int q = po + 9 * c * V + 9 * PLANES * V;
    FloatVector b = FloatVector.fromArray(F, part, q);
    for (int p = 0; p < NP; p++) b = b.add(DoubleVector.fromArray(D, dz, PAD_OF[p] * c).reinterpretAsFloats());
    b.intoArray(part, q);
  }

  /**
   * part[w1][k][plane][c] += sum over the chunk's non-zero inputs (plane, cell q, value v) of
   * v * dz1[q - OFF[k]][c] (the padded border is zero, so no bounds tests), and part[b1] += sum of dz1.
   */
  private void conv1WeightGrad(Scratch sc, int r0, int n, int po) {
    int c = C, cv = CV;
    float[] dz = sc.dz1;
    int[] act = sc.act;
    for (int i = 0; i < n; i++) {
      int zo = i * PP * c, ob = (r0 + i) * OBS;
      int cnt = DefaultPolicy.activeCells(trainObs, ob, act, 0);
      for (int j = 0; j < c; j += V) {
        int e = 0;
        for (int pl = 0; pl < PLANES; pl++) {
          int q = po + pl * cv + j, ks = PLANES * cv;
          FloatVector s0 = FloatVector.fromArray(F, part, q), s1 = FloatVector.fromArray(F, part, q + ks);
          FloatVector s2 = FloatVector.fromArray(F, part, q + 2 * ks), s3 = FloatVector.fromArray(F, part, q + 3 * ks);
          FloatVector s4 = FloatVector.fromArray(F, part, q + 4 * ks), s5 = FloatVector.fromArray(F, part, q + 5 * ks);
          FloatVector s6 = FloatVector.fromArray(F, part, q + 6 * ks), s7 = FloatVector.fromArray(F, part, q + 7 * ks);
          FloatVector s8 = FloatVector.fromArray(F, part, q + 8 * ks);
          for (; e < cnt && act[e] < (pl + 1) * P; e++) {
            int idx = act[e];
            FloatVector v = FloatVector.broadcast(F, (float) trainObs[ob + idx]);
            // Tap k of map cell t reads this input: t = TAP_OUT[q * 9 + k] (a zero border cell of dz,
            // or -1 off the padded frame, which only the crop's outer ring has).
            int to = (idx - pl * P) * 9, zj = zo + j, t;
            if ((t = TAP_OUT[to]) >= 0) s0 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s0);
            if ((t = TAP_OUT[to + 1]) >= 0) s1 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s1);
            if ((t = TAP_OUT[to + 2]) >= 0) s2 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s2);
            if ((t = TAP_OUT[to + 3]) >= 0) s3 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s3);
            if ((t = TAP_OUT[to + 4]) >= 0) s4 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s4);
            if ((t = TAP_OUT[to + 5]) >= 0) s5 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s5);
            if ((t = TAP_OUT[to + 6]) >= 0) s6 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s6);
            if ((t = TAP_OUT[to + 7]) >= 0) s7 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s7);
            if ((t = TAP_OUT[to + 8]) >= 0) s8 = v.fma(FloatVector.fromArray(F, dz, zj + t * c), s8);
          }
          s0.intoArray(part, q); s1.intoArray(part, q + ks); s2.intoArray(part, q + 2 * ks);
          s3.intoArray(part, q + 3 * ks); s4.intoArray(part, q + 4 * ks); s5.intoArray(part, q + 5 * ks);
          s6.intoArray(part, q + 6 * ks); s7.intoArray(part, q + 7 * ks); s8.intoArray(part, q + 8 * ks);
        }
        int q = po + 9 * PLANES * cv + cv + j;
        FloatVector b = FloatVector.fromArray(F, part, q);
        for (int p = 0; p < NP; p++) b = b.add(FloatVector.fromArray(F, dz, zo + PAD_OF[p] * c + j));
        b.intoArray(part, q);
      }
    }
  }

}
