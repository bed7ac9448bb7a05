package dev.speedrun.nn;

import dev.speedrun.env.Rng;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * A convolutional recurrent actor-critic (the conv-recurrent candidate of docs/experiments.md):
 * its recurrent state is a feature map, so each step's update of a cell sees its neighbours', as in
 * the DRC agents that learn Sokoban well (Guez et al. 2019), here with one convolutional GRU and one
 * or more ticks per step (DRC's "thinking": the same encoding fed to the cell {@code ticks} times,
 * each tick's state the next one's previous state), on the board's 8 x 8 interior (every Boxoban
 * level has a wall border; the encoder still reads the border through its taps).
 *
 * <pre>
 * Legend: R = T*B rows (time-major); NP = 64 interior cells (8 x 8; cell p = y*8 + x is board cell
 * (y + 1, x + 1)); C encoder channels; K state channels; H head width; A actions. Tensors keep
 * PyTorch's layouts; maps and states are channels-last (index p*K + k).
 *
 *   enc    e[R][NP][C]  = relu(conv3x3(obs planes [4][10][10], enc.weight [C][4][3][3]) + enc.bias)
 *                         at the interior cells (the whole board's convolution, cropped)
 *   core   h_t[B][NP][K] = ConvGRU(e_t, h_{t-1}) on the 8 x 8 grid, zero padding 1 (h_{t-1} zeroed
 *                         where an episode began); gates r, z, n as PyTorch's GRUCell with its two
 *                         products replaced by 3x3 convolutions:
 *                           gi = conv3x3(e, cgru.weight_ih [3K][C][3][3]) + cgru.bias_ih
 *                           gh = conv3x3(h, cgru.weight_hh [3K][K][3][3]) + cgru.bias_hh
 *                           r = sig(gi_r + gh_r); z = sig(gi_z + gh_z); m = tanh(gi_n + r gh_n)
 *                           h_t = (1 - z) m + z h_{t-1}
 *                         with ticks N > 1: h^0 = h_{t-1}, h^(i+1) = ConvGRU(e_t, h^i), h_t = h^N (gi once per step)
 *                         separable (Config#separable): gh = conv1x1(dwconv3x3(h, cgru.depthwise_hh [K][1][3][3]),
 *                           cgru.weight_hh [3K][K][1][1]) + cgru.bias_hh (a depthwise-separable convolution:
 *                           the same 3x3 view, 9K + 3K^2 multiply-adds per cell instead of 27K^2)
 *                         separableInput: gi = conv1x1(dwconv3x3(e, cgru.depthwise_ih [C][1][3][3]),
 *                           cgru.weight_ih [3K][C][1][1]) + cgru.bias_ih (9C + 3KC per cell instead of 27KC)
 *                         pool (DRC's pool-and-inject), every tick: gi += cgru.weight_pool [3K][2K] .
 *                           [mean over the 64 cells of h^i, max over them] (per channel; the same at every cell)
 *   head   y[R][H]      = relu(h_t flattened (index p*K + k) . head.weight^T + head.bias), head.weight [H][NP*K]
 *   out    logits, values: {@link DefaultPolicy}'s heads on y (its core with no minGRU layer)
 * </pre>
 *
 * <p>How it is computed: each row (one environment at one step) runs on its own. The maps live in
 * 10 x 10 frames, the interior plus a zero border, channels-last with the channels rounded up to
 * whole vectors (CV, KV; gates in three blocks of KV), so no tap needs a bounds test. The
 * convolutions are {@link #conv}: for one row of 8 cells, 8 vector accumulators along the output
 * channels, each weight vector load feeding 8 FMAs with broadcast inputs (the pinned encoder's
 * kernel); the backward pass's input gradients are the same kernel on the gate gradients with
 * flipped, transposed weights, and {@link #weightGrad} sums weight gradients eight input channels
 * at a time. The backward pass runs column by column (each environment's sequence, last step
 * first, within a step the last tick first), summing weight gradients in that fixed order. One thread per policy: the trainer's
 * {@code shards} give each core its own replica. Not thread-safe.
 *
 * <p>Parameters: 36C + C + 3K(9C + 9K + 2) + (64K + 1)H + (A + 1)(H + 1) (ticks add none); separable
 * has 9K + 3K^2 hidden-convolution weights in place of 27K^2, separableInput 9C + 3KC input ones in
 * place of 27KC; pool adds 6K^2 (weight_pool). Multiply-adds per forward step: 2,304 C + 1,728 K (C + N K) + 64 K H + (A + 1) H;
 * separable 64 N (9K + 3K^2) in place of 1,728 N K^2, separableInput 64 (9C + 3KC) in place of
 * 1,728 K C, pool 6 N K^2 ({@link Config#forwardMacs}), plus about 30 elementwise operations per state value and tick.
 */
public final class ConvGruPolicy implements PolicyNet {
  public static final int OBS = 400, SIDE = 10, PLANES = 4;
  /** Interior side, cells, and the cells of the padded frame (the board's own 10 x 10). */
  static final int S = SIDE - 2, NP = S * S, PP = SIDE * SIDE;

  /**
   * @param channels C; @param state K; @param hidden H; @param actions A; @param seed initialisation;
   * @param ticks N, cell updates per environment step (0 reads as 1: configs written before ticks existed).
   * @param separable the hidden convolution as a depthwise 3x3 on the state then a 1x1 to the gates
   *     (false in configs written before it existed).
   * @param separableInput the input convolution likewise: a depthwise 3x3 on the encoding, then a 1x1.
   * @param pool DRC's pool-and-inject: every tick, the previous state's mean and max over the 64
   *     cells, per channel, through a linear map to the gates, added at every cell (false in configs
   *     written before it existed).
   */
  public record Config(int channels, int state, int hidden, int actions, long seed, int ticks, boolean separable,
      boolean separableInput, boolean pool) {
    public Config {
      if (ticks == 0) ticks = 1;
      if (channels < 1 || state < 1 || hidden < 1 || actions < 1) throw new IllegalArgumentException("sizes must be positive: " + this);
      if (ticks < 1 || ticks > 16) throw new IllegalArgumentException("ticks must be in 1..16: " + this);
    }

    /** One tick per step. */
    public Config(int channels, int state, int hidden, int actions, long seed) {
      this(channels, state, hidden, actions, seed, 1, false, false, false);
    }

    /** The full 3x3 convolutions. */
    public Config(int channels, int state, int hidden, int actions, long seed, int ticks) {
      this(channels, state, hidden, actions, seed, ticks, false, false, false);
    }

    /** The full 3x3 input convolution. */
    public Config(int channels, int state, int hidden, int actions, long seed, int ticks, boolean separable) {
      this(channels, state, hidden, actions, seed, ticks, separable, false, false);
    }

    /** No pool-and-inject. */
    public Config(int channels, int state, int hidden, int actions, long seed, int ticks, boolean separable, boolean separableInput) {
      this(channels, state, hidden, actions, seed, ticks, separable, separableInput, false);
    }

    public String toJson() {
      return ConfigJson.write(this);
    }

    public static Config fromJson(String json) {
      return ConfigJson.read(json, Config.class, "convgru policy config");
    }

    public double forwardMacs() {
      double hiddenConv = separable ? NP * (9.0 * state + 3.0 * state * state) : 27.0 * NP * state * state;
      double inputConv = separableInput ? NP * (9.0 * channels + 3.0 * state * channels) : 27.0 * NP * state * channels;
      double poolInject = pool ? 6.0 * state * state : 0;
      return 36.0 * NP * channels + inputConv + ticks * (hiddenConv + poolInject) + (double) NP * state * hidden
          + (actions + 1.0) * hidden;
    }
  }

  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final int V = F.length();
  /** Frame index of interior cell p, and the frame offsets of the 9 taps (row-major 3x3). */
  private static final int[] PAD_OF = new int[NP], OFF = new int[9], CENTER = {0};

  static {
    for (int p = 0; p < NP; p++) PAD_OF[p] = (p / S + 1) * SIDE + p % S + 1;
    for (int k = 0; k < 9; k++) OFF[k] = (k / 3 - 1) * SIDE + k % 3 - 1;
  }

  private final Config cfg;
  private final Params params = new Params();
  private final Params.Tensor encW, encB, wIh, wHh, bIh, bHh, headW, headB, wDw, wDwi, wPool;
  private final boolean SEP, SEPI, POOL;
  private final DefaultPolicy core;
  private final int C, K, H, CV, KV, GW, NPK, T;
  private final ParMm mm = new ParMm();
  private static final Workers SERIAL = new Workers(1);
  private static final float[] NONE = new float[0]; // the core's state (it has no minGRU layer)

  // Weights re-laid from params at the start of every pass: enc per tap and plane (we [9][4][CV]),
  // the gate convolutions per tap and input channel along the gates (wi [9][C][GW], wh [9][K][GW],
  // gate g channel k at lane g*KV + k), their adjoints per tap and gate channel (flipped taps:
  // wiT [9][3K][CV], whT [9][3K][KV]), biases, head.weight^T [NP*K][H]. Separable: wh [1][K][GW] and
  // whT [1][3K][KV] are the 1x1's, dw [9][KV] the depthwise taps along the channels, dwT flipped;
  // separable input: wi [1][C][GW], wiT [1][3K][CV], dwi [9][CV], dwiT flipped.
  private final float[] we, be, wi, wh, bi, bh, wiT, whT, dw, dwT, dwi, dwiT, wp;
  private float[] headT = new float[0], biasAcc = new float[0];

  /**
   * Per-row activations: padded enc [PP][CV]; per tick the padded previous state [PP][KV] and the
   * gates (r, z, m, gh_n) [NP][4KV] (HPT and GCT floats per row: T of each).
   */
  private final int ENC, HP, GC, HPT, GCT;
  // Training forward's activations for the backward pass, [R] rows each, and its shape.
  private float[] tEnc = new float[0], tHp = new float[0], tGc = new float[0], tH = new float[0], tX0 = new float[0], tDh = new float[0];
  private byte[] tObs = new byte[0];
  private boolean[] tReset = new boolean[0];
  private int shapeT, shapeB;
  private boolean haveForward;
  // Rollout step's buffers ([N] rows, keeps nothing) and per-row scratch.
  private float[] sH = new float[0], sX0 = new float[0];
  private final float[] enc1, hp1, gc1, gi0, gi, gh, dgi, dgh, dEnc, dPrev, carry, dOut, hTick, dwf, ddf, dwe, dde;
  // pool-and-inject: the pooled state [2K] (means, then maxima), the cell of each maximum [K], the
  // injection [GW] (gate lanes), its gradient, and the pooled state's gradient
  private final float[] pu, gp, dgp, dpu;
  private final int[] pArg;
  private final float[] gW; // weight gradients in the re-laid layouts: wi, wh, we, then biases bi, bh, be, then dw, dwi, wp

  public ConvGruPolicy(Config cfg) {
    this.cfg = cfg;
    C = cfg.channels();
    K = cfg.state();
    H = cfg.hidden();
    CV = (C + V - 1) / V * V;
    KV = (K + V - 1) / V * V;
    GW = 3 * KV;
    NPK = NP * K;
    T = cfg.ticks();
    SEP = cfg.separable();
    SEPI = cfg.separableInput();
    POOL = cfg.pool();
    encW = params.add("enc.weight", C, PLANES, 3, 3);
    encB = params.add("enc.bias", C);
    wDwi = SEPI ? params.add("cgru.depthwise_ih", C, 1, 3, 3) : null;
    wIh = SEPI ? params.add("cgru.weight_ih", 3 * K, C, 1, 1) : params.add("cgru.weight_ih", 3 * K, C, 3, 3);
    wDw = SEP ? params.add("cgru.depthwise_hh", K, 1, 3, 3) : null;
    wHh = SEP ? params.add("cgru.weight_hh", 3 * K, K, 1, 1) : params.add("cgru.weight_hh", 3 * K, K, 3, 3);
    bIh = params.add("cgru.bias_ih", 3 * K);
    bHh = params.add("cgru.bias_hh", 3 * K);
    wPool = POOL ? params.add("cgru.weight_pool", 3 * K, 2 * K) : null;
    headW = params.add("head.weight", H, NPK);
    headB = params.add("head.bias", H);
    core = new DefaultPolicy(new DefaultPolicy.Config(H, 0, cfg.actions(), cfg.seed()), params, false);
    Rng rng = new Rng(cfg.seed());
    // He-uniform for the ReLU layers, PyTorch's default bound 1/sqrt(fan_in) for the GRU.
    uniform(rng, encW, (float) Math.sqrt(6.0 / (PLANES * 9)));
    if (SEPI) uniform(rng, wDwi, 1f / 3);
    uniform(rng, wIh, (float) (1 / Math.sqrt(SEPI ? C : C * 9)));
    if (SEP) uniform(rng, wDw, 1f / 3); // PyTorch's default bound for a depthwise 3x3 (fan-in 9)
    uniform(rng, wHh, (float) (1 / Math.sqrt(SEP ? K : K * 9)));
    uniform(rng, bIh, (float) (1 / Math.sqrt(C * 9)));
    uniform(rng, bHh, (float) (1 / Math.sqrt(K * 9)));
    uniform(rng, headW, (float) Math.sqrt(6.0 / NPK));
    if (POOL) uniform(rng, wPool, (float) (1 / Math.sqrt(2 * K))); // last: the other tensors start as without it
    we = new float[9 * PLANES * CV];
    be = new float[CV];
    int iTaps = SEPI ? 1 : 9;
    wi = new float[iTaps * C * GW];
    int hTaps = SEP ? 1 : 9;
    wh = new float[hTaps * K * GW];
    bi = new float[GW];
    bh = new float[GW];
    wiT = new float[iTaps * 3 * K * CV];
    dwi = new float[SEPI ? 9 * CV : 0];
    dwiT = new float[dwi.length];
    whT = new float[hTaps * 3 * K * KV];
    dw = new float[SEP ? 9 * KV : 0];
    dwT = new float[dw.length];
    ENC = PP * CV;
    HP = PP * KV;
    GC = NP * 4 * KV;
    HPT = T * HP;
    GCT = T * GC;
    enc1 = new float[ENC];
    hp1 = new float[HPT];
    gc1 = new float[GCT];
    gi0 = new float[NP * GW];
    gi = new float[NP * GW];
    gh = new float[NP * GW];
    dgi = new float[PP * GW]; // padded: the adjoint convolutions read them; the border stays zero
    dgh = new float[PP * GW];
    dEnc = new float[NP * CV];
    dPrev = new float[NP * KV];
    carry = new float[NPK];
    dOut = new float[NPK];
    hTick = new float[NPK];
    dwf = new float[SEP ? HP : 0]; // the depthwise output, padded so the 1x1 reads it as a frame
    ddf = new float[SEP ? HP : 0]; // its gradient, padded for the adjoint depthwise convolution
    dwe = new float[SEPI ? ENC : 0]; // the same two for the separable input convolution
    dde = new float[SEPI ? ENC : 0];
    wp = new float[POOL ? 2 * K * GW : 0];
    pu = new float[2 * K];
    dpu = new float[2 * K];
    pArg = new int[K];
    gp = new float[GW];
    dgp = new float[GW];
    gW = new float[wi.length + wh.length + we.length + 2 * GW + CV + dw.length + dwi.length + wp.length];
  }

  private void uniform(Rng rng, Params.Tensor t, float bound) {
    for (int i = 0; i < t.size(); i++) params.data[t.offset() + i] = (2 * rng.nextFloat() - 1) * bound;
  }

  public Config config() { return cfg; }

  /**
   * As {@link DefaultPolicy#warmUp}: compiles the hot paths (rollout step, training forward and
   * backward through every tick and a reset) on a throwaway policy of this config, so the run's
   * clock does not pay for the Vector API's interpreted fallback; returns seconds. Touches no other
   * policy (the kernels are static and keep no state).
   */
  public static double warmUp(Config cfg, int iterations) {
    long t0 = System.nanoTime();
    PolicyNet.exercise(new ConvGruPolicy(cfg), 4, 4, iterations);
    return (System.nanoTime() - t0) / 1e9;
  }

  @Override public int numActions() { return cfg.actions(); }

  @Override public int stateSize() { return NPK; }

  @Override public Params params() { return params; }

  /** Rebuilds the re-laid weights from params. */
  private void relay() {
    float[] w = params.data;
    int oe = encW.offset(), oi = wIh.offset(), oh = wHh.offset(), G = 3 * K;
    for (int k = 0; k < 9; k++) {
      for (int pl = 0; pl < PLANES; pl++) for (int c = 0; c < C; c++) we[(k * PLANES + pl) * CV + c] = w[oe + (c * PLANES + pl) * 9 + k];
      for (int g = 0; g < G; g++) {
        int lane = g / K * KV + g % K;
        if (!SEPI) {
          for (int c = 0; c < C; c++) {
            wi[(k * C + c) * GW + lane] = w[oi + (g * C + c) * 9 + k];
            wiT[(k * G + g) * CV + c] = w[oi + (g * C + c) * 9 + 8 - k];
          }
        }
        if (!SEP) {
          for (int c = 0; c < K; c++) {
            wh[(k * K + c) * GW + lane] = w[oh + (g * K + c) * 9 + k];
            whT[(k * G + g) * KV + c] = w[oh + (g * K + c) * 9 + 8 - k];
          }
        }
      }
      if (SEP) {
        for (int c = 0; c < K; c++) {
          dw[k * KV + c] = w[wDw.offset() + c * 9 + k];
          dwT[k * KV + c] = w[wDw.offset() + c * 9 + 8 - k];
        }
      }
    }
    if (SEP) {
      for (int g = 0; g < G; g++) {
        for (int c = 0; c < K; c++) {
          wh[c * GW + g / K * KV + g % K] = w[oh + g * K + c];
          whT[g * KV + c] = w[oh + g * K + c];
        }
      }
    }
    if (SEPI) {
      for (int k = 0; k < 9; k++) {
        for (int c = 0; c < C; c++) {
          dwi[k * CV + c] = w[wDwi.offset() + c * 9 + k];
          dwiT[k * CV + c] = w[wDwi.offset() + c * 9 + 8 - k];
        }
      }
      for (int g = 0; g < G; g++) {
        for (int c = 0; c < C; c++) {
          wi[c * GW + g / K * KV + g % K] = w[oi + g * C + c];
          wiT[g * CV + c] = w[oi + g * C + c];
        }
      }
    }
    if (POOL) for (int g = 0; g < G; g++) for (int j = 0; j < 2 * K; j++) wp[j * GW + g / K * KV + g % K] = w[wPool.offset() + g * 2 * K + j];
    System.arraycopy(w, encB.offset(), be, 0, C);
    for (int g = 0; g < G; g++) {
      bi[g / K * KV + g % K] = w[bIh.offset() + g];
      bh[g / K * KV + g % K] = w[bHh.offset() + g];
    }
    if (headT.length < NPK * H) headT = new float[NPK * H];
    int oq = headW.offset();
    // transposed in 16 x 16 tiles (a whole-row stride on either side misses the cache on every element)
    for (int j0 = 0; j0 < H; j0 += 16) {
      for (int i0 = 0; i0 < NPK; i0 += 16) {
        for (int j = j0; j < Math.min(j0 + 16, H); j++) {
          for (int i = i0; i < Math.min(i0 + 16, NPK); i++) headT[i * H + j] = w[oq + j * NPK + i];
        }
      }
    }
  }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    relay();
    if (sH.length < n * NPK) {
      sH = new float[n * NPK];
      sX0 = new float[n * H];
    }
    for (int i = 0; i < n; i++) {
      toFrame(state, i * NPK, hp1, 0);
      cellRow(obs, i * OBS, enc1, 0, hp1, 0, gc1, 0, sH, i * NPK);
    }
    System.arraycopy(sH, 0, state, 0, n * NPK);
    head(sH, sX0, n);
    core.stepFrom(sX0, n, NONE, logits, values);
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    relay();
    int rows = t * b;
    if (tH.length < rows * NPK) {
      tEnc = new float[rows * ENC];
      tHp = new float[rows * HPT];
      tGc = new float[rows * GCT];
      tH = new float[rows * NPK];
      tX0 = new float[rows * H];
      tObs = new byte[rows * OBS];
      tReset = new boolean[rows];
    }
    System.arraycopy(obs, 0, tObs, 0, rows * OBS);
    System.arraycopy(resetBefore, 0, tReset, 0, rows);
    for (int i = 0; i < b; i++) {
      for (int s = 0; s < t; s++) {
        int r = s * b + i;
        if (resetBefore[r]) Arrays.fill(tHp, r * HPT, r * HPT + HP, 0f);
        else if (s == 0) toFrame(h0, i * NPK, tHp, r * HPT);
        else toFrame(tH, (r - b) * NPK, tHp, r * HPT);
        cellRow(obs, r * OBS, tEnc, r * ENC, tHp, r * HPT, tGc, r * GCT, tH, r * NPK);
      }
    }
    head(tH, tX0, rows);
    core.forwardFrom(tX0, resetBefore, NONE, t, b, logits, values);
    shapeT = t;
    shapeB = b;
    haveForward = true;
  }

  /** A state [NP][K] at {@code so} into a padded frame [PP][KV] at {@code fo} (border and pad lanes zero). */
  private void toFrame(float[] st, int so, float[] frame, int fo) {
    Arrays.fill(frame, fo, fo + HP, 0f);
    for (int p = 0; p < NP; p++) System.arraycopy(st, so + p * K, frame, fo + PAD_OF[p] * KV, K);
  }

  /** x0 [n][H] = relu(h [n][NP*K] . head.weight^T + head.bias). */
  private void head(float[] h, float[] x0, int n) {
    float[] w = params.data;
    for (int r = 0; r < n; r++) System.arraycopy(w, headB.offset(), x0, r * H, H);
    mm.ab(SERIAL, h, 0, headT, 0, x0, 0, n, H, NPK, true);
    for (int i = 0; i < n * H; i++) x0[i] = Math.max(x0[i], 0f);
  }

  /**
   * One row: the encoder into the padded frame {@code enc} (at eo), then T ticks of the ConvGRU from
   * the padded previous state in {@code hp} at ho (the caller's; the later ticks' frames follow it,
   * HP apart) into hOut [NP][K] (at oo), keeping each tick's gates in {@code gc} (at go, GC apart).
   */
  private void cellRow(byte[] obs, int ob, float[] enc, int eo, float[] hp, int ho, float[] gc, int go, float[] hOut, int oo) {
    encode(obs, ob, enc, eo);
    if (SEPI) {
      depthwise(enc, eo, CV, dwi, dwe, true);
      conv(dwe, 0, CV, 1, C, 0, wi, GW, bi, gi0, 0, CENTER);
    } else {
      conv(enc, eo, CV, 1, C, 0, wi, GW, bi, gi0, 0, OFF);
    }
    for (int tk = 0; tk < T; tk++) {
      if (tk == T - 1) {
        tick(hp, ho + tk * HP, gc, go + tk * GC, hOut, oo);
      } else {
        tick(hp, ho + tk * HP, gc, go + tk * GC, hTick, 0);
        toFrame(hTick, 0, hp, ho + (tk + 1) * HP);
      }
    }
  }

  /** The encoder of one observation (at ob) into the padded frame {@code enc} (at eo). */
  private void encode(byte[] obs, int ob, float[] enc, int eo) {
    Arrays.fill(enc, eo, eo + ENC, 0f);
    for (int p = 0; p < NP; p++) {
      int q = PAD_OF[p]; // the interior cell's board index (the frame is the board)
      for (int j = 0; j < CV; j += V) {
        FloatVector acc = FloatVector.fromArray(F, be, j);
        for (int k = 0; k < 9; k++) {
          int nb = ob + q + OFF[k];
          for (int pl = 0; pl < PLANES; pl++) {
            int v = obs[nb + pl * PP];
            if (v != 0) acc = FloatVector.fromArray(F, we, (k * PLANES + pl) * CV + j).fma(FloatVector.broadcast(F, (float) v), acc);
          }
        }
        acc.max(0f).intoArray(enc, eo + q * CV + j);
      }
    }
  }

  /**
   * One tick of the ConvGRU, its input convolution already in gi0: from the padded previous state
   * {@code hp} (at ho) into hOut [NP][K] (at oo), keeping the gates in {@code gc} (at go).
   */
  private void tick(float[] hp, int ho, float[] gc, int go, float[] hOut, int oo) {
    System.arraycopy(gi0, 0, gi, 0, gi0.length);
    if (POOL) inject(hp, ho);
    if (SEP) {
      depthwise(hp, ho, KV, dw, dwf, true);
      conv(dwf, 0, KV, 1, K, 0, wh, GW, bh, gh, 0, CENTER);
    } else {
      conv(hp, ho, KV, 1, K, 0, wh, GW, bh, gh, 0, OFF);
    }
    // Gates: sigmoid of r and z in place in gi, then m = tanh(a) = 2 sigmoid(2a) - 1.
    // The elementwise loops run along vectors (KV lanes; the same operations in the same order per
    // lane as a scalar loop, so the same bits).
    for (int p = 0; p < NP; p++) {
      int o = p * GW;
      for (int j = 0; j < 2 * KV; j += V) FloatVector.fromArray(F, gi, o + j).add(FloatVector.fromArray(F, gh, o + j)).intoArray(gi, o + j);
    }
    for (int p = 0; p < NP; p++) Kernels.activate(gi, p * GW, 2 * KV, false);
    for (int p = 0; p < NP; p++) {
      int o = p * GW + 2 * KV;
      for (int j = 0; j < KV; j += V) {
        FloatVector a = FloatVector.fromArray(F, gi, o + j), r = FloatVector.fromArray(F, gi, o - 2 * KV + j);
        a.add(r.mul(FloatVector.fromArray(F, gh, o + j))).mul(2f).intoArray(gi, o + j);
      }
      Kernels.activate(gi, o, KV, false);
    }
    for (int p = 0; p < NP; p++) {
      int o = p * GW, c = go + p * 4 * KV, hq = ho + PAD_OF[p] * KV, out = oo + p * K;
      if (K == KV) { // whole vectors: hOut's rows (K floats) are then vector-aligned too
        for (int j = 0; j < K; j += V) {
          FloatVector r = FloatVector.fromArray(F, gi, o + j), z = FloatVector.fromArray(F, gi, o + KV + j);
          FloatVector m = FloatVector.fromArray(F, gi, o + 2 * KV + j).mul(2f).sub(1f);
          FloatVector.broadcast(F, 1f).sub(z).mul(m).add(z.mul(FloatVector.fromArray(F, hp, hq + j))).intoArray(hOut, out + j);
          r.intoArray(gc, c + j);
          z.intoArray(gc, c + KV + j);
          m.intoArray(gc, c + 2 * KV + j);
          FloatVector.fromArray(F, gh, o + 2 * KV + j).intoArray(gc, c + 3 * KV + j);
        }
        continue;
      }
      for (int j = 0; j < K; j++) {
        float r = gi[o + j], z = gi[o + KV + j], m = 2f * gi[o + 2 * KV + j] - 1f;
        hOut[out + j] = (1f - z) * m + z * hp[hq + j];
        gc[c + j] = r;
        gc[c + KV + j] = z;
        gc[c + 2 * KV + j] = m;
        gc[c + 3 * KV + j] = gh[o + 2 * KV + j];
      }
    }
  }

  /** The previous state's (padded frame at ho) channel means and maxima into pu, the cells of the maxima into pArg. */
  private void pool(float[] hp, int ho) {
    for (int k = 0; k < K; k++) {
      float sum = 0f, max = Float.NEGATIVE_INFINITY;
      int arg = 0;
      for (int p = 0; p < NP; p++) {
        float v = hp[ho + PAD_OF[p] * KV + k];
        sum += v;
        if (v > max) {
          max = v;
          arg = p;
        }
      }
      pu[k] = sum * (1f / NP);
      pu[K + k] = max;
      pArg[k] = arg;
    }
  }

  /** Pool-and-inject: gp = weight_pool . pool(h^i) along the gate lanes, added to every cell's gi. */
  private void inject(float[] hp, int ho) {
    pool(hp, ho);
    for (int j = 0; j < GW; j += V) {
      FloatVector acc = FloatVector.zero(F);
      for (int u = 0; u < 2 * K; u++) acc = FloatVector.fromArray(F, wp, u * GW + j).fma(FloatVector.broadcast(F, pu[u]), acc);
      acc.intoArray(gp, j);
    }
    for (int p = 0; p < NP; p++) {
      for (int j = 0; j < GW; j += V) FloatVector.fromArray(F, gi, p * GW + j).add(FloatVector.fromArray(F, gp, j)).intoArray(gi, p * GW + j);
    }
  }

  /**
   * A 3x3 convolution over the interior of a padded channels-last frame: out[oo + p*ow + j] for the
   * 64 cells p and output lanes j in [0, ow) = bias[j] (or 0) + sum over taps k, input groups g and
   * channels c of in[io + (PAD_OF[p] + OFF[k]) cs + g gs + c] * w[((k groups + g) gch + c) ow + j].
   * cs is the frame's floats per cell; the input channels are {@code groups} blocks of {@code gch},
   * {@code gs} apart (the gate gradients' three blocks). The taps are the frame offsets {@code taps}
   * ({@link #OFF} for 3x3, {@link #CENTER} for 1x1). One board row of 8 cells at a time: 8 vector
   * accumulators, each weight load feeding 8 FMAs.
   */
  private static void conv(float[] in, int io, int cs, int groups, int gch, int gs, float[] w, int ow, float[] bias, float[] out,
      int oo, int[] taps) {
    for (int j = 0; j < ow; j += V) {
      FloatVector init = bias == null ? FloatVector.zero(F) : FloatVector.fromArray(F, bias, j);
      for (int y = 0; y < S; y++) {
        FloatVector s0 = init, s1 = init, s2 = init, s3 = init, s4 = init, s5 = init, s6 = init, s7 = init;
        int base = io + ((y + 1) * SIDE + 1) * cs;
        for (int k = 0; k < taps.length; k++) {
          int kb = base + taps[k] * cs;
          for (int g = 0; g < groups; g++) {
            int wk = ((k * groups + g) * gch) * ow + j, gb = kb + g * gs;
            for (int c = 0; c < gch; c++) {
              FloatVector wv = FloatVector.fromArray(F, w, wk + c * ow);
              int i = gb + c;
              s0 = FloatVector.broadcast(F, in[i]).fma(wv, s0);
              s1 = FloatVector.broadcast(F, in[i + cs]).fma(wv, s1);
              s2 = FloatVector.broadcast(F, in[i + 2 * cs]).fma(wv, s2);
              s3 = FloatVector.broadcast(F, in[i + 3 * cs]).fma(wv, s3);
              s4 = FloatVector.broadcast(F, in[i + 4 * cs]).fma(wv, s4);
              s5 = FloatVector.broadcast(F, in[i + 5 * cs]).fma(wv, s5);
              s6 = FloatVector.broadcast(F, in[i + 6 * cs]).fma(wv, s6);
              s7 = FloatVector.broadcast(F, in[i + 7 * cs]).fma(wv, s7);
            }
          }
        }
        int o = oo + y * S * ow + j;
        s0.intoArray(out, o);
        s1.intoArray(out, o + ow);
        s2.intoArray(out, o + 2 * ow);
        s3.intoArray(out, o + 3 * ow);
        s4.intoArray(out, o + 4 * ow);
        s5.intoArray(out, o + 5 * ow);
        s6.intoArray(out, o + 6 * ow);
        s7.intoArray(out, o + 7 * ow);
      }
    }
  }

  /**
   * The depthwise 3x3 over the interior of a padded frame [PP][cs] (cs floats per cell, at io): per cell p and channel c,
   * sum over taps k of in[io + (PAD_OF[p] + OFF[k]) cs + c] * w[k cs + c], into out at PAD_OF[p] cs
   * ({@code padded}, a frame whose border the caller keeps zero) or at p cs.
   */
  private static void depthwise(float[] in, int io, int cs, float[] w, float[] out, boolean padded) {
    // A board row of 8 cells at a time: 8 independent accumulators (one cell's 9 taps are a chain
    // of dependent FMAs, too short to keep the FMA units busy alone).
    for (int y = 0; y < S; y++) {
      int q = io + ((y + 1) * SIDE + 1) * cs, o = (padded ? (y + 1) * SIDE + 1 : y * S) * cs;
      for (int j = 0; j < cs; j += V) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
        for (int k = 0; k < 9; k++) {
          FloatVector wv = FloatVector.fromArray(F, w, k * cs + j);
          int a = q + OFF[k] * cs + j;
          s0 = FloatVector.fromArray(F, in, a).fma(wv, s0);
          s1 = FloatVector.fromArray(F, in, a + cs).fma(wv, s1);
          s2 = FloatVector.fromArray(F, in, a + 2 * cs).fma(wv, s2);
          s3 = FloatVector.fromArray(F, in, a + 3 * cs).fma(wv, s3);
          s4 = FloatVector.fromArray(F, in, a + 4 * cs).fma(wv, s4);
          s5 = FloatVector.fromArray(F, in, a + 5 * cs).fma(wv, s5);
          s6 = FloatVector.fromArray(F, in, a + 6 * cs).fma(wv, s6);
          s7 = FloatVector.fromArray(F, in, a + 7 * cs).fma(wv, s7);
        }
        int b = o + j;
        s0.intoArray(out, b);
        s1.intoArray(out, b + cs);
        s2.intoArray(out, b + 2 * cs);
        s3.intoArray(out, b + 3 * cs);
        s4.intoArray(out, b + 4 * cs);
        s5.intoArray(out, b + 5 * cs);
        s6.intoArray(out, b + 6 * cs);
        s7.intoArray(out, b + 7 * cs);
      }
    }
  }

  /** The weight gradient of {@link #depthwise}: part[po + k cs + c] += sum over p of in[io + (PAD_OF[p] + OFF[k]) cs + c] * d[PAD_OF[p] cs + c]. */
  private static void depthwiseGrad(float[] in, int io, int cs, float[] d, float[] part, int po) {
    // The 9 taps' sums side by side (independent accumulators), each over the cells in order.
    for (int j = 0; j < cs; j += V) {
      FloatVector s0 = FloatVector.fromArray(F, part, po + j), s1 = FloatVector.fromArray(F, part, po + cs + j);
      FloatVector s2 = FloatVector.fromArray(F, part, po + 2 * cs + j), s3 = FloatVector.fromArray(F, part, po + 3 * cs + j);
      FloatVector s4 = FloatVector.fromArray(F, part, po + 4 * cs + j), s5 = FloatVector.fromArray(F, part, po + 5 * cs + j);
      FloatVector s6 = FloatVector.fromArray(F, part, po + 6 * cs + j), s7 = FloatVector.fromArray(F, part, po + 7 * cs + j);
      FloatVector s8 = FloatVector.fromArray(F, part, po + 8 * cs + j);
      for (int p = 0; p < NP; p++) {
        FloatVector dv = FloatVector.fromArray(F, d, PAD_OF[p] * cs + j);
        int a = io + PAD_OF[p] * cs + j;
        s0 = FloatVector.fromArray(F, in, a + OFF[0] * cs).fma(dv, s0);
        s1 = FloatVector.fromArray(F, in, a + OFF[1] * cs).fma(dv, s1);
        s2 = FloatVector.fromArray(F, in, a + OFF[2] * cs).fma(dv, s2);
        s3 = FloatVector.fromArray(F, in, a + OFF[3] * cs).fma(dv, s3);
        s4 = FloatVector.fromArray(F, in, a + OFF[4] * cs).fma(dv, s4);
        s5 = FloatVector.fromArray(F, in, a + OFF[5] * cs).fma(dv, s5);
        s6 = FloatVector.fromArray(F, in, a + OFF[6] * cs).fma(dv, s6);
        s7 = FloatVector.fromArray(F, in, a + OFF[7] * cs).fma(dv, s7);
        s8 = FloatVector.fromArray(F, in, a + OFF[8] * cs).fma(dv, s8);
      }
      s0.intoArray(part, po + j);
      s1.intoArray(part, po + cs + j);
      s2.intoArray(part, po + 2 * cs + j);
      s3.intoArray(part, po + 3 * cs + j);
      s4.intoArray(part, po + 4 * cs + j);
      s5.intoArray(part, po + 5 * cs + j);
      s6.intoArray(part, po + 6 * cs + j);
      s7.intoArray(part, po + 7 * cs + j);
      s8.intoArray(part, po + 8 * cs + j);
    }
  }

  /**
   * The weight gradient of {@link #conv} (one input group): part[po + (k ch + c) ow + j] += sum over
   * the 64 cells p of in[io + (PAD_OF[p] + OFF[k]) cs + c] * d[dof + PAD_OF[p] ow + j] (d a padded
   * frame of ow floats per cell), eight input channels at a time; taps as in {@link #conv}.
   */
  private static void weightGrad(float[] in, int io, int cs, int ch, float[] d, int dof, int ow, float[] part, int po, int[] taps) {
    for (int j = 0; j < ow; j += V) {
      for (int k = 0; k < taps.length; k++) {
        int c = 0;
        for (; c + 8 <= ch; c += 8) {
          int q = po + (k * ch + c) * ow + j;
          FloatVector s0 = FloatVector.fromArray(F, part, q), s1 = FloatVector.fromArray(F, part, q + ow);
          FloatVector s2 = FloatVector.fromArray(F, part, q + 2 * ow), s3 = FloatVector.fromArray(F, part, q + 3 * ow);
          FloatVector s4 = FloatVector.fromArray(F, part, q + 4 * ow), s5 = FloatVector.fromArray(F, part, q + 5 * ow);
          FloatVector s6 = FloatVector.fromArray(F, part, q + 6 * ow), s7 = FloatVector.fromArray(F, part, q + 7 * ow);
          for (int p = 0; p < NP; p++) {
            FloatVector dv = FloatVector.fromArray(F, d, dof + PAD_OF[p] * ow + j);
            int a = io + (PAD_OF[p] + taps[k]) * cs + c;
            s0 = FloatVector.broadcast(F, in[a]).fma(dv, s0);
            s1 = FloatVector.broadcast(F, in[a + 1]).fma(dv, s1);
            s2 = FloatVector.broadcast(F, in[a + 2]).fma(dv, s2);
            s3 = FloatVector.broadcast(F, in[a + 3]).fma(dv, s3);
            s4 = FloatVector.broadcast(F, in[a + 4]).fma(dv, s4);
            s5 = FloatVector.broadcast(F, in[a + 5]).fma(dv, s5);
            s6 = FloatVector.broadcast(F, in[a + 6]).fma(dv, s6);
            s7 = FloatVector.broadcast(F, in[a + 7]).fma(dv, s7);
          }
          s0.intoArray(part, q);
          s1.intoArray(part, q + ow);
          s2.intoArray(part, q + 2 * ow);
          s3.intoArray(part, q + 3 * ow);
          s4.intoArray(part, q + 4 * ow);
          s5.intoArray(part, q + 5 * ow);
          s6.intoArray(part, q + 6 * ow);
          s7.intoArray(part, q + 7 * ow);
        }
        for (; c < ch; c++) {
          int q = po + (k * ch + c) * ow + j;
          FloatVector s0 = FloatVector.fromArray(F, part, q);
          for (int p = 0; p < NP; p++) {
            s0 = FloatVector.broadcast(F, in[io + (PAD_OF[p] + taps[k]) * cs + c]).fma(FloatVector.fromArray(F, d, dof + PAD_OF[p] * ow + j), s0);
          }
          s0.intoArray(part, q);
        }
      }
    }
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    if (!haveForward) throw new IllegalStateException("backward without forward");
    int t = shapeT, b = shapeB, rows = t * b;
    core.backward(dLogits, dValues);
    float[] g = params.grad, w = params.data;
    // head: through y's ReLU (in place in the core's scratch), then its weight gradients and dLoss/dh.
    float[] dx0 = core.inputGrad();
    for (int i = 0; i < rows * H; i++) if (tX0[i] <= 0f) dx0[i] = 0f;
    mm.atb(SERIAL, dx0, 0, tH, 0, g, headW.offset(), H, NPK, rows, true);
    if (biasAcc.length < H) biasAcc = new float[H];
    Kernels.colSum(dx0, rows, H, g, headB.offset(), biasAcc);
    // dLoss/dh_t from the head, all rows at once (dx0 . head.weight)
    if (tDh.length < rows * NPK) tDh = new float[rows * NPK];
    mm.ab(SERIAL, dx0, 0, w, headW.offset(), tDh, 0, rows, NPK, H, false);
    relay();
    Arrays.fill(gW, 0f);
    int gwi = 0, gwh = wi.length, gwe = gwh + wh.length, gbi = gwe + we.length, gbh = gbi + GW, gbe = gbh + GW, gdw = gbe + CV;
    int gdwi = gdw + dw.length, gwp = gdwi + dwi.length;
    // Through time, column by column (each environment's sequence), last step first; the gradient
    // into h0 is dropped (h0 is data).
    for (int i = 0; i < b; i++) {
      Arrays.fill(carry, 0f);
      for (int s = t - 1; s >= 0; s--) {
        int r = s * b + i;
        // dLoss/dh_t = the head's + the carry from step s + 1
        for (int q = 0; q < NPK; q++) dOut[q] = tDh[r * NPK + q] + carry[q];
        int eo = r * ENC;
        // dgi sums over the ticks (they share the input convolution); its border stays zero
        Arrays.fill(dgi, 0f);
        for (int tk = T - 1; tk >= 0; tk--) {
          int ho = r * HPT + tk * HP, go = r * GCT + tk * GC;
          if (tk < T - 1) System.arraycopy(carry, 0, dOut, 0, NPK); // a later tick's only consumer is the next tick
          if (POOL) Arrays.fill(dgp, 0f);
          // gates backward: dgi (summed), dgh (padded), and the direct path dh^(i-1) += dh^i z into carry
          for (int p = 0; p < NP; p++) {
            int c = go + p * 4 * KV, d = PAD_OF[p] * GW, hq = ho + PAD_OF[p] * KV, o = p * K;
            if (K == KV) { // along vectors, the scalar loop's operations in its order
              for (int j = 0; j < K; j += V) {
                FloatVector rr = FloatVector.fromArray(F, tGc, c + j), z = FloatVector.fromArray(F, tGc, c + KV + j);
                FloatVector m = FloatVector.fromArray(F, tGc, c + 2 * KV + j), ghn = FloatVector.fromArray(F, tGc, c + 3 * KV + j);
                FloatVector dd = FloatVector.fromArray(F, dOut, o + j), one = FloatVector.broadcast(F, 1f);
                dd.mul(z).intoArray(carry, o + j);
                FloatVector dz = dd.mul(FloatVector.fromArray(F, tHp, hq + j).sub(m)).mul(z).mul(one.sub(z));
                FloatVector dm = dd.mul(one.sub(z)).mul(one.sub(m.mul(m)));
                FloatVector dr = dm.mul(ghn).mul(rr).mul(one.sub(rr));
                FloatVector.fromArray(F, dgi, d + j).add(dr).intoArray(dgi, d + j);
                FloatVector.fromArray(F, dgi, d + KV + j).add(dz).intoArray(dgi, d + KV + j);
                FloatVector.fromArray(F, dgi, d + 2 * KV + j).add(dm).intoArray(dgi, d + 2 * KV + j);
                if (POOL) {
                  FloatVector.fromArray(F, dgp, j).add(dr).intoArray(dgp, j);
                  FloatVector.fromArray(F, dgp, KV + j).add(dz).intoArray(dgp, KV + j);
                  FloatVector.fromArray(F, dgp, 2 * KV + j).add(dm).intoArray(dgp, 2 * KV + j);
                }
                dr.intoArray(dgh, d + j);
                dz.intoArray(dgh, d + KV + j);
                dm.mul(rr).intoArray(dgh, d + 2 * KV + j);
              }
              continue;
            }
            for (int j = 0; j < K; j++) {
              float rr = tGc[c + j], z = tGc[c + KV + j], m = tGc[c + 2 * KV + j], ghn = tGc[c + 3 * KV + j];
              float dd = dOut[o + j];
              carry[o + j] = dd * z;
              float dz = dd * (tHp[hq + j] - m) * z * (1f - z);
              float dm = dd * (1f - z) * (1f - m * m);
              float dr = dm * ghn * rr * (1f - rr);
              dgi[d + j] += dr;
              dgi[d + KV + j] += dz;
              dgi[d + 2 * KV + j] += dm;
              if (POOL) {
                dgp[j] += dr;
                dgp[KV + j] += dz;
                dgp[2 * KV + j] += dm;
              }
              dgh[d + j] = dr;
              dgh[d + KV + j] = dz;
              dgh[d + 2 * KV + j] = dm * rr;
            }
          }
          // the hidden convolution's weight and bias gradients (separable: the 1x1's from the
          // depthwise output, recomputed, then the depthwise's from the 1x1's input gradient in ddf)
          if (SEP) {
            depthwise(tHp, ho, KV, dw, dwf, true);
            weightGrad(dwf, 0, KV, K, dgh, 0, GW, gW, gwh, CENTER);
            conv(dgh, 0, GW, 3, K, KV, whT, KV, null, dPrev, 0, CENTER);
            for (int p = 0; p < NP; p++) System.arraycopy(dPrev, p * KV, ddf, PAD_OF[p] * KV, KV);
            depthwiseGrad(tHp, ho, KV, ddf, gW, gdw);
          } else {
            weightGrad(tHp, ho, KV, K, dgh, 0, GW, gW, gwh, OFF);
          }
          for (int p = 0; p < NP; p++) {
            int d = PAD_OF[p] * GW;
            for (int j = 0; j < GW; j++) gW[gbh + j] += dgh[d + j];
          }
          // pool-and-inject: weight_pool's gradient dgp (x) pool(h^(i-1)), and dLoss/dpool = weight_pool^T dgp
          if (POOL) {
            pool(tHp, ho);
            for (int u = 0; u < 2 * K; u++) {
              FloatVector pv = FloatVector.broadcast(F, pu[u]);
              FloatVector du = FloatVector.zero(F);
              for (int j = 0; j < GW; j += V) {
                FloatVector dv = FloatVector.fromArray(F, dgp, j);
                int q = gwp + u * GW + j;
                dv.fma(pv, FloatVector.fromArray(F, gW, q)).intoArray(gW, q);
                du = dv.fma(FloatVector.fromArray(F, wp, u * GW + j), du);
              }
              dpu[u] = Kernels.sumLanes(du); // not reduceLanes: its order differs before and after the JIT
            }
          }
          // dLoss/dh^(i-1) (at the first tick dh_{t-1}): the adjoint of the hidden convolution, plus
          // the direct path (and the pooling's); zero at the first tick after a reset or of the segment
          if (tk == 0 && (tReset[r] || s == 0)) {
            Arrays.fill(carry, 0f);
          } else {
            if (SEP) depthwise(ddf, 0, KV, dwT, dPrev, false);
            else conv(dgh, 0, GW, 3, K, KV, whT, KV, null, dPrev, 0, OFF);
            for (int p = 0; p < NP; p++) for (int j = 0; j < K; j++) carry[p * K + j] += dPrev[p * KV + j];
            if (POOL) { // the mean's gradient to every cell, the maximum's to its cell
              for (int p = 0; p < NP; p++) for (int j = 0; j < K; j++) carry[p * K + j] += dpu[j] * (1f / NP);
              for (int j = 0; j < K; j++) carry[pArg[j] * K + j] += dpu[K + j];
            }
          }
        }
        // the input convolution's weight and bias gradients
        if (SEPI) {
          depthwise(tEnc, eo, CV, dwi, dwe, true);
          weightGrad(dwe, 0, CV, C, dgi, 0, GW, gW, gwi, CENTER);
        } else {
          weightGrad(tEnc, eo, CV, C, dgi, 0, GW, gW, gwi, OFF);
        }
        for (int p = 0; p < NP; p++) {
          int d = PAD_OF[p] * GW;
          for (int j = 0; j < GW; j++) gW[gbi + j] += dgi[d + j];
        }
        // dLoss/d(enc pre-activation): the adjoint of the input convolution, through the ReLU; the
        // encoder's weight gradients gather over the observation's non-zero planes.
        if (SEPI) { // through the 1x1 into dde (padded), the depthwise's weight gradient, then its adjoint
          conv(dgi, 0, GW, 3, K, KV, wiT, CV, null, dEnc, 0, CENTER);
          for (int p = 0; p < NP; p++) System.arraycopy(dEnc, p * CV, dde, PAD_OF[p] * CV, CV);
          depthwiseGrad(tEnc, eo, CV, dde, gW, gdwi);
          depthwise(dde, 0, CV, dwiT, dEnc, false);
        } else {
          conv(dgi, 0, GW, 3, K, KV, wiT, CV, null, dEnc, 0, OFF);
        }
        int ob = r * OBS;
        for (int p = 0; p < NP; p++) {
          int q = PAD_OF[p], de = p * CV;
          for (int j = 0; j < CV; j++) if (tEnc[eo + q * CV + j] <= 0f) dEnc[de + j] = 0f;
          for (int j = 0; j < CV; j++) gW[gbe + j] += dEnc[de + j];
          for (int k = 0; k < 9; k++) {
            for (int pl = 0; pl < PLANES; pl++) {
              int v = tObs[ob + pl * PP + q + OFF[k]];
              if (v == 0) continue;
              int wq = gwe + (k * PLANES + pl) * CV;
              for (int j = 0; j < CV; j += V) {
                FloatVector.fromArray(F, gW, wq + j).add(FloatVector.fromArray(F, dEnc, de + j).mul((float) v)).intoArray(gW, wq + j);
              }
            }
          }
        }
      }
    }
    // back to PyTorch's layouts
    int oe = encW.offset(), oi = wIh.offset(), oh = wHh.offset(), G = 3 * K;
    for (int k = 0; k < 9; k++) {
      for (int pl = 0; pl < PLANES; pl++) for (int c = 0; c < C; c++) g[oe + (c * PLANES + pl) * 9 + k] += gW[gwe + (k * PLANES + pl) * CV + c];
      for (int gg = 0; gg < G; gg++) {
        int lane = gg / K * KV + gg % K;
        if (!SEPI) for (int c = 0; c < C; c++) g[oi + (gg * C + c) * 9 + k] += gW[gwi + (k * C + c) * GW + lane];
        if (!SEP) for (int c = 0; c < K; c++) g[oh + (gg * K + c) * 9 + k] += gW[gwh + (k * K + c) * GW + lane];
      }
      if (SEP) for (int c = 0; c < K; c++) g[wDw.offset() + c * 9 + k] += gW[gdw + k * KV + c];
      if (SEPI) for (int c = 0; c < C; c++) g[wDwi.offset() + c * 9 + k] += gW[gdwi + k * CV + c];
    }
    if (SEP) {
      for (int gg = 0; gg < G; gg++) for (int c = 0; c < K; c++) g[oh + gg * K + c] += gW[gwh + c * GW + gg / K * KV + gg % K];
    }
    if (SEPI) {
      for (int gg = 0; gg < G; gg++) for (int c = 0; c < C; c++) g[oi + gg * C + c] += gW[gwi + c * GW + gg / K * KV + gg % K];
    }
    if (POOL) {
      for (int gg = 0; gg < G; gg++) for (int u = 0; u < 2 * K; u++) g[wPool.offset() + gg * 2 * K + u] += gW[gwp + u * GW + gg / K * KV + gg % K];
    }
    for (int c = 0; c < C; c++) g[encB.offset() + c] += gW[gbe + c];
    for (int gg = 0; gg < G; gg++) {
      g[bIh.offset() + gg] += gW[gbi + gg / K * KV + gg % K];
      g[bHh.offset() + gg] += gW[gbh + gg / K * KV + gg % K];
    }
  }
}
