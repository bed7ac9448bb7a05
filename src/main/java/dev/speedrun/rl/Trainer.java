package dev.speedrun.rl;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.env.PrioritizedLevelReplay;
import dev.speedrun.env.Rng;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.nn.Schedule;
import dev.speedrun.nn.Workers;
import dev.speedrun.sokoban.Level;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Recurrent PPO, readable top to bottom (in the spirit of CleanRL's {@code ppo.py}); every constant
 * comes from the {@link Recipe}. One {@link #iterate()} is:
 *
 * <ol>
 *   <li>Rollout: N environments x T steps. The policy steps its recurrent state (a row is zeroed
 *       when its episode ended); actions are sampled from the softmax with a uniform number derived
 *       from (seed, env, env step) — never one shared generator — so results do not depend on
 *       threads. Observations, actions, log-probabilities, values, clamped rewards and dones are
 *       stored time-major ([T][N]). The 120-step end is terminal like a solve: no bootstrap.
 *   <li>Advantages: GAE(gamma, lambda) with the bootstrap value of the last observation.
 *   <li>Update: {@code epochs} passes; each pass shuffles the N env segments and cuts them into
 *       minibatches of B whole segments; the network runs BPTT over the T steps from the state the
 *       segment started with. Before every pass after the first, advantages are recomputed with
 *       V-trace-clipped importance ratios and the latest values (PufferLib's recipe), if enabled.
 *       With {@code segmentSampling = prio} each minibatch instead draws its segments by their summed
 *       |advantage| and weights them ({@link #drawPrioritized}), recomputing V-trace advantages before every minibatch.
 *       Advantages are normalized per minibatch; the clipped PPO loss's gradients with respect to
 *       logits and values are computed by hand ({@link PpoLoss}) and back-propagated; the global
 *       gradient norm is clipped and the optimizer steps with the scheduled learning rate.
 * </ol>
 *
 * <p>With {@code recipe.overlap()} the two phases run at once on two threads: an actor (a copy of
 * the policy holding the parameters of the last update) collects batch k+1 while the learner trains
 * on batch k, so each batch is trained one update after it was collected. The first epoch then
 * treats it as on-policy (ratio 1 in GAE; PPO's clipped ratio still sees the lag), later epochs use
 * V-trace weights as above. The threads share nothing between the start and the end of an
 * iteration, so results stay deterministic.
 *
 * <p>With a {@link PrioritizedLevelReplay} sampler (recipe {@code levelSampling = plr}), the rollout
 * records which level each step played; the update turns the first epoch's GAE advantages into
 * per-episode scores (mean of max(A, 0) over all of an episode's steps, accumulated across rollouts
 * when the horizon cuts an episode); the scores reach the sampler after the update (and, with
 * overlap, after the concurrent rollout has finished), in time-major env order.
 */
public final class Trainer {
  private static final long ACTION_SALT = 0x41435431L, SHUFFLE_SALT = 0x53485546L,
      PRIO_SALT = 0x5052494fL;
  private static final int A = BoxobanEnv.NUM_ACTIONS, O = BoxobanEnv.OBS;

  public final Recipe recipe;
  public final long seed;
  private final PolicyNet net;
  private final Optimizer opt;
  private final BoxobanEnv env;
  private final int n, t, s, b;
  private PpoLoss.Coefs coefs; // this iteration's (the entropy bonus may follow a schedule)
  private final Schedule schedule;

  // Counters (checkpointed).
  private long iteration, globalStep, episodes, solves;

  /** One rollout's storage, time-major [T][N]. */
  static final class Batch {
    final byte[] obs;
    final int[] actions;
    final float[] logp, values, rewards;
    final boolean[] dones, resetBefore;
    final float[] bootstrap; // [N]
    final float[] h0; // [N][S], the recurrent state before step 0
    // Level replay only (null otherwise): the store level each step played, whether it was a
    // replay, whether the step solved it, and whether the episode it ended reached a target.
    final int[] level;
    final boolean[] replayed, solved, reached;

    Batch(int t, int n, int s, boolean plr) {
      obs = new byte[t * n * O];
      actions = new int[t * n];
      logp = new float[t * n];
      values = new float[t * n];
      rewards = new float[t * n];
      dones = new boolean[t * n];
      resetBefore = new boolean[t * n];
      bootstrap = new float[n];
      h0 = new float[n * s];
      level = plr ? new int[t * n] : null;
      replayed = plr ? new boolean[t * n] : null;
      solved = plr ? new boolean[t * n] : null;
      reached = plr ? new boolean[t * n] : null;
    }

    void save(DataOutputStream out) throws IOException {
      out.write(obs);
      for (int v : actions) out.writeInt(v);
      for (float[] a : new float[][] {logp, values, rewards, bootstrap, h0}) for (float v : a) out.writeFloat(v);
      for (boolean[] a : new boolean[][] {dones, resetBefore}) for (boolean v : a) out.writeBoolean(v);
      if (level != null) {
        for (int v : level) out.writeInt(v);
        for (boolean[] a : new boolean[][] {replayed, solved, reached}) for (boolean v : a) out.writeBoolean(v);
      }
    }

    void load(DataInputStream in) throws IOException {
      in.readFully(obs);
      for (int k = 0; k < actions.length; k++) actions[k] = in.readInt();
      for (float[] a : new float[][] {logp, values, rewards, bootstrap, h0}) for (int k = 0; k < a.length; k++) a[k] = in.readFloat();
      for (boolean[] a : new boolean[][] {dones, resetBefore}) for (int k = 0; k < a.length; k++) a[k] = in.readBoolean();
      if (level != null) {
        for (int k = 0; k < level.length; k++) level[k] = in.readInt();
        for (boolean[] a : new boolean[][] {replayed, solved, reached}) for (int k = 0; k < a.length; k++) a[k] = in.readBoolean();
      }
    }
  }

  // Rollout storage: one batch, or two when rollout and learning overlap (one filled while the other trains).
  private Batch cur, next;
  /** Overlap mode: {@code cur} holds a collected batch that has not been trained on yet. */
  private boolean pending;
  /** Overlap mode: the actor's copy of the policy (the parameters of the last update). */
  private final PolicyNet actor;
  private final java.util.concurrent.ExecutorService actorThread;
  private final float[] adv, returns, ratio, latestValues;
  private final float[] state; // [N][S]
  private final float[] stepLogits, stepValues, bootstrapState;
  private final int[] stepActions;

  // Minibatch storage [T][B].
  private final byte[] mbObs;
  private final boolean[] mbReset;
  private final float[] mbH0, mbLogits, mbValues, mbDLogits, mbDValues, mbOldLogp, mbAdv, mbRet, mbOldV, mbRatio;
  private final int[] mbActions, perm;
  // Data-parallel shards (recipe.shards() > 1): replicas of the policy (reps[0] is net), the pool that
  // runs one shard per task, and each shard's slices of the rollout step and of the minibatch.
  private final int shards;
  private final PolicyNet[] reps;
  private final Workers pool;
  private final Shard[] shard;
  private final Workers.Task stepTask = this::stepShards, forwardTask = this::forwardShards,
      backwardTask = this::backwardShards;
  // The rollout step being run by stepTask (set before each pool.run).
  private byte[] stepObs;
  private float[] stepState, stepOutLogits, stepOutValues;

  /** One shard's buffers: a rollout step of N/K environments and a minibatch of B/K segments. */
  private static final class Shard {
    final byte[] sObs, obs;
    final float[] sState, sLogits, sValues, h0, logits, values, dLogits, dValues;
    final boolean[] reset;

    Shard(int nk, int bk, int t, int s) {
      sObs = new byte[nk * O];
      sState = new float[nk * s];
      sLogits = new float[nk * A];
      sValues = new float[nk];
      obs = new byte[t * bk * O];
      reset = new boolean[t * bk];
      h0 = new float[bk * s];
      logits = new float[t * bk * A];
      values = new float[t * bk];
      dLogits = new float[t * bk * A];
      dValues = new float[t * bk];
    }
  }

  // Prioritized segment sampling: each drawn segment's importance weight [B]; scratch [N].
  private final float[] mbWeight;
  private final double[] segScore;
  private final boolean[] taken;

  // Rolling episode statistics (checkpointed).
  private final byte[] winSolved;
  private final float[] winReturn;
  private final short[] winLength;
  private int winPos, winCount;

  // Level replay (null / unused with other samplers).
  private final PrioritizedLevelReplay plr;
  /** Per env: sum of max(A, 0) and steps of its unfinished episode over the batches scored so far (checkpointed). */
  private final double[] plrSum;
  private final int[] plrSteps;
  /** Episodes scored by the last update, waiting to reach the sampler: level, score, solved, replayed. */
  private final int[] pendLevel;
  private final float[] pendScore;
  private final boolean[] pendSolved, pendReplayed, pendReached;
  private int pendCount;
  private PlrStats plrStats;

  /**
   * Level-replay figures of one iteration: buffer size, the fraction of this iteration's resets
   * that replayed, the buffer's mean and max score, and the solve rate of the episodes scored in
   * this iteration on replayed and on new levels, and how many of them reached a target (NaN
   * without such episodes).
   */
  public record PlrStats(int buffer, double replayFraction, double meanScore, double maxScore, long replayEpisodes,
      double replaySolveRate, double replayTargetRate, long newEpisodes, double newSolveRate, double newTargetRate) {}

  /** Per-phase wall time of the last iteration, in nanoseconds (not checkpointed). */
  public long nanosEnv, nanosForward, nanosLearn;

  /** Metrics of one iteration. */
  public record Metrics(long iteration, long globalStep, float learningRate, double policyLoss, double valueLoss,
      double entropy, double approxKl, double clipFrac, double gradNorm, double solveRate, double episodicReturn,
      double episodicLength, long episodes, long solves) {}

  public Trainer(Recipe recipe, long seed, PolicyNet net, Optimizer opt, LevelSampler sampler) {
    this(recipe, seed, net, null, opt, sampler);
  }

  public Trainer(Recipe recipe, long seed, PolicyNet net, PolicyNet actor, Optimizer opt, LevelSampler sampler) {
    this(recipe, seed, net, actor, opt, sampler, null, null);
  }

  /**
   * @param actor with {@code recipe.overlap()}: a second instance of the policy (any parameters;
   *     they are overwritten with {@code net}'s) that collects rollouts on its own thread
   * @param pool with {@code recipe.shards() > 1}: the threads that run the shards ({@code net} and the
   *     replicas must then run their own passes on one thread)
   * @param replica with {@code recipe.shards() > 1}: makes a policy of {@code net}'s architecture
   *     (its parameters are overwritten with {@code net}'s)
   */
  public Trainer(Recipe recipe, long seed, PolicyNet net, PolicyNet actor, Optimizer opt, LevelSampler sampler,
      Workers pool, java.util.function.Supplier<PolicyNet> replica) {
    this.recipe = recipe;
    this.seed = seed;
    this.net = net;
    this.opt = opt;
    this.n = recipe.numEnvs();
    this.t = recipe.horizon();
    this.s = net.stateSize();
    this.b = recipe.minibatchSegments();
    this.coefs = PpoLoss.Coefs.of(recipe);
    this.schedule = recipe.schedule();
    plr = sampler instanceof PrioritizedLevelReplay p ? p : null;
    boolean withPlr = plr != null;
    plrSum = withPlr ? new double[n] : null;
    plrSteps = withPlr ? new int[n] : null;
    pendLevel = withPlr ? new int[t * n] : null;
    pendScore = withPlr ? new float[t * n] : null;
    pendSolved = withPlr ? new boolean[t * n] : null;
    pendReplayed = withPlr ? new boolean[t * n] : null;
    pendReached = withPlr ? new boolean[t * n] : null;
    env = new BoxobanEnv(n, sampler);
    env.reset();
    cur = new Batch(t, n, s, withPlr);
    if (recipe.overlap()) {
      if (actor == null) throw new IllegalArgumentException("overlap needs an actor policy");
      next = new Batch(t, n, s, withPlr);
      this.actor = actor;
      System.arraycopy(net.params().data, 0, actor.params().data, 0, net.params().size());
      actorThread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread th = new Thread(r, "rollout");
        th.setDaemon(true);
        return th;
      });
    } else {
      this.actor = net;
      actorThread = null;
    }
    adv = new float[t * n];
    returns = new float[t * n];
    ratio = new float[t * n];
    latestValues = new float[t * n];
    state = new float[n * s];
    stepLogits = new float[n * A];
    stepValues = new float[n];
    bootstrapState = new float[n * s];
    stepActions = new int[n];
    mbObs = new byte[t * b * O];
    mbReset = new boolean[t * b];
    mbH0 = new float[b * s];
    mbLogits = new float[t * b * A];
    mbDLogits = new float[t * b * A];
    mbValues = new float[t * b];
    mbDValues = new float[t * b];
    mbOldLogp = new float[t * b];
    mbAdv = new float[t * b];
    mbRet = new float[t * b];
    mbOldV = new float[t * b];
    mbRatio = new float[t * b];
    mbActions = new int[t * b];
    perm = new int[n];
    shards = recipe.shards();
    reps = new PolicyNet[shards];
    shard = new Shard[shards];
    if (shards > 1 && (pool == null || replica == null)) throw new IllegalArgumentException("shards need a pool and replicas");
    this.pool = shards > 1 ? pool : null;
    reps[0] = net;
    for (int k = 0; k < shards; k++) {
      if (k > 0) reps[k] = replica.get();
      if (shards > 1) shard[k] = new Shard(n / shards, b / shards, t, s);
    }
    mbWeight = new float[b];
    segScore = new double[n];
    taken = new boolean[n];
    winSolved = new byte[recipe.statsWindow()];
    winReturn = new float[recipe.statsWindow()];
    winLength = new short[recipe.statsWindow()];
  }

  public long iteration() { return iteration; }
  public long globalStep() { return globalStep; }
  public PolicyNet policy() { return net; }
  public boolean finished() { return iteration >= recipe.iterations(); }

  /** Level-replay figures of the last iteration, or null without level replay. */
  public PlrStats plrStats() { return plrStats; }

  /**
   * Fraction of the rolling window's episodes in which a box reached a target at least once (with
   * the benchmark's rewards, exactly those with return above -0.9: an unsolved episode returns
   * 0.25 per target reached minus 1, a solved one at least 1).
   */
  public double targetRate() {
    if (winCount == 0) return Double.NaN;
    int k = 0;
    for (int j = 0; j < winCount; j++) if (winReturn[j] > -0.9f) k++;
    return (double) k / winCount;
  }

  /** One rollout and one update. */
  public Metrics iterate() {
    nanosEnv = nanosForward = 0;
    float lr = schedule.lr(iteration);
    coefs = new PpoLoss.Coefs(coefs.clip(), coefs.clipValue(), coefs.valueCoef(), recipe.entropyCoefAt(iteration));
    PpoLoss.Stats st = new PpoLoss.Stats();
    double gradNorm;
    PrioritizedLevelReplay.Counters before = plr == null ? null : plr.counters();
    pendCount = 0;
    syncReplicas();
    if (!recipe.overlap()) {
      rollout(cur, net);
      long t1 = System.nanoTime();
      gradNorm = update(cur, lr, st);
      nanosLearn = System.nanoTime() - t1;
    } else {
      // The actor collects the next batch with the parameters of the last update while the learner
      // trains on the batch collected before (one update of policy lag; PPO's ratio and V-trace's
      // clipped weights correct for it). The two threads share nothing until both are done.
      if (!pending) {
        rollout(cur, actor); // fills the pipeline (first iteration, or after a resume without pending data)
        pending = true;
      }
      boolean last = iteration + 1 >= recipe.iterations();
      java.util.concurrent.Future<?> f = last ? null : actorThread.submit(() -> rollout(next, actor));
      long t1 = System.nanoTime();
      gradNorm = update(cur, lr, st);
      nanosLearn = System.nanoTime() - t1;
      try {
        if (f != null) f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the rollout thread was running", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("rollout thread failed", e.getCause());
      }
      System.arraycopy(net.params().data, 0, actor.params().data, 0, net.params().size());
      Batch tmp = cur;
      cur = next;
      next = tmp;
      pending = !last;
    }
    if (plr != null) applyScores(before);
    iteration++;
    double c = Math.max(1, st.count);
    return new Metrics(iteration, globalStep, lr, st.policyLoss / c, st.valueLoss / c, st.entropy / c,
        st.approxKl / c, st.clipFrac / c, gradNorm, winMean(0), winMean(1), winMean(2), episodes, solves);
  }

  // ---------------------------------------------------------------- rollout

  /** The reward PPO learns from: the environment's, times {@code scale}, clamped to +-{@code clamp}. */
  static float trainingReward(float envReward, float scale, float clamp) {
    return Math.max(-clamp, Math.min(clamp, envReward * scale));
  }

  private void rollout(Batch bt, PolicyNet policy) {
    byte[] obs = bt.obs;
    int[] actions = bt.actions;
    float[] logp = bt.logp, values = bt.values, rewards = bt.rewards;
    boolean[] dones = bt.dones, resetBefore = bt.resetBefore;
    System.arraycopy(state, 0, bt.h0, 0, state.length);
    Arrays.fill(resetBefore, 0, n, false); // h0 already holds the zeroed rows
    float clamp = recipe.rewardClamp(), scale = recipe.rewardScale();
    for (int step = 0; step < t; step++) {
      int base = step * n;
      long f0 = System.nanoTime();
      System.arraycopy(env.obs, 0, obs, base * O, n * O);
      step(policy, env.obs, state, stepLogits, stepValues);
      System.arraycopy(stepValues, 0, values, base, n);
      long f1 = System.nanoTime();
      nanosForward += f1 - f0;
      if (bt.level != null) {
        for (int i = 0; i < n; i++) {
          bt.level[base + i] = plr.current(i);
          bt.replayed[base + i] = plr.currentReplayed(i);
        }
      }
      for (int i = 0; i < n; i++) {
        long envStep = globalStep / n + step; // this env's step count within the run
        double u = (Rng.mix(seed ^ ACTION_SALT, i, envStep) >>> 11) * 0x1.0p-53;
        int a = sample(stepLogits, i * A, u);
        stepActions[i] = a;
        actions[base + i] = a;
        logp[base + i] = logProb(stepLogits, i * A, a);
      }
      env.step(stepActions);
      for (int i = 0; i < n; i++) {
        rewards[base + i] = trainingReward(env.rewards[i], scale, clamp);
        boolean d = env.dones[i];
        dones[base + i] = d;
        if (step + 1 < t) resetBefore[base + n + i] = d; // the state was zeroed before the next step
        if (bt.solved != null) {
          bt.solved[base + i] = d && env.lastSolved[i];
          bt.reached[base + i] = d && env.lastTargetsReached[i] > 0;
        }
        if (d) {
          Arrays.fill(state, i * s, (i + 1) * s, 0f);
          recordEpisode(env.lastSolved[i], env.lastReturn[i], env.lastLength[i]);
        }
      }
      nanosEnv += System.nanoTime() - f1;
    }
    // Bootstrap value V(s_T) from a copy of the state (the real state continues next iteration).
    long f0 = System.nanoTime();
    System.arraycopy(state, 0, bootstrapState, 0, state.length);
    step(policy, env.obs, bootstrapState, stepLogits, bt.bootstrap);
    nanosForward += System.nanoTime() - f0;
    globalStep += (long) n * t;
  }


  /** One policy step of all N environments: in one call, or one call per shard on the pool. */
  private void step(PolicyNet policy, byte[] obs, float[] st, float[] logits, float[] values) {
    if (shards == 1 || policy != net) {
      policy.step(obs, n, st, logits, values);
      return;
    }
    stepObs = obs;
    stepState = st;
    stepOutLogits = logits;
    stepOutValues = values;
    pool.run(stepTask, shards, 1);
    stepObs = null;
    stepState = stepOutLogits = stepOutValues = null;
  }

  /** Shards [from, to) of a rollout step: environments [k N/K, (k+1) N/K) on replica k. */
  private void stepShards(int worker, int from, int to) {
    int nk = n / shards;
    for (int k = from; k < to; k++) {
      Shard sh = shard[k];
      System.arraycopy(stepObs, k * nk * O, sh.sObs, 0, nk * O);
      System.arraycopy(stepState, k * nk * s, sh.sState, 0, nk * s);
      reps[k].step(sh.sObs, nk, sh.sState, sh.sLogits, sh.sValues);
      System.arraycopy(sh.sState, 0, stepState, k * nk * s, nk * s);
      System.arraycopy(sh.sLogits, 0, stepOutLogits, k * nk * A, nk * A);
      System.arraycopy(sh.sValues, 0, stepOutValues, k * nk, nk);
    }
  }

  /** Shards [from, to) of a minibatch's forward pass: segments [k B/K, (k+1) B/K) on replica k. */
  private void forwardShards(int worker, int from, int to) {
    int bk = b / shards;
    for (int k = from; k < to; k++) {
      Shard sh = shard[k];
      System.arraycopy(mbH0, k * bk * s, sh.h0, 0, bk * s);
      for (int step = 0; step < t; step++) {
        int src = step * b + k * bk, dst = step * bk;
        System.arraycopy(mbObs, src * O, sh.obs, dst * O, bk * O);
        System.arraycopy(mbReset, src, sh.reset, dst, bk);
      }
      reps[k].params().zeroGrad();
      reps[k].forward(sh.obs, sh.reset, sh.h0, t, bk, sh.logits, sh.values);
      for (int step = 0; step < t; step++) {
        int dst = step * b + k * bk, src = step * bk;
        System.arraycopy(sh.logits, src * A, mbLogits, dst * A, bk * A);
        System.arraycopy(sh.values, src, mbValues, dst, bk);
      }
    }
  }

  /** Shards [from, to) of a minibatch's backward pass (each replica's gradients into its own buffer). */
  private void backwardShards(int worker, int from, int to) {
    int bk = b / shards;
    for (int k = from; k < to; k++) {
      Shard sh = shard[k];
      for (int step = 0; step < t; step++) {
        int src = step * b + k * bk, dst = step * bk;
        System.arraycopy(mbDLogits, src * A, sh.dLogits, dst * A, bk * A);
        System.arraycopy(mbDValues, src, sh.dValues, dst, bk);
      }
      reps[k].backward(sh.dLogits, sh.dValues);
    }
  }

  /** The replicas take net's parameters (after every optimizer step, and after a checkpoint load). */
  private void syncReplicas() {
    float[] p = net.params().data;
    for (int k = 1; k < shards; k++) System.arraycopy(p, 0, reps[k].params().data, 0, p.length);
  }

  /** Samples from softmax(logits[o..o+A)) with the uniform number u in [0, 1). */
  static int sample(float[] logits, int o, double u) {
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < A; j++) max = Math.max(max, logits[o + j]);
    double sum = 0;
    for (int j = 0; j < A; j++) sum += Math.exp(logits[o + j] - max);
    double target = u * sum, acc = 0;
    for (int j = 0; j < A - 1; j++) {
      acc += Math.exp(logits[o + j] - max);
      if (target < acc) return j;
    }
    return A - 1;
  }

  /** log softmax(logits[o..o+A))[a], computed as {@link PpoLoss} does. */
  static float logProb(float[] logits, int o, int a) {
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < A; j++) max = Math.max(max, logits[o + j]);
    double sum = 0;
    for (int j = 0; j < A; j++) sum += Math.exp(logits[o + j] - max);
    return (float) (logits[o + a] - max - Math.log(sum));
  }

  private void recordEpisode(boolean solved, float ret, int length) {
    episodes++;
    if (solved) solves++;
    winSolved[winPos] = (byte) (solved ? 1 : 0);
    winReturn[winPos] = ret;
    winLength[winPos] = (short) length;
    winPos = (winPos + 1) % winSolved.length;
    winCount = Math.min(winCount + 1, winSolved.length);
  }

  private double winMean(int what) {
    if (winCount == 0) return Double.NaN;
    double sum = 0;
    for (int k = 0; k < winCount; k++) {
      sum += switch (what) {
        case 0 -> winSolved[k];
        case 1 -> winReturn[k];
        default -> winLength[k];
      };
    }
    return sum / winCount;
  }

  // ---------------------------------------------------------------- update

  private double update(Batch bt, float lr, PpoLoss.Stats st) {
    float[] rewards = bt.rewards, values = bt.values, bootstrap = bt.bootstrap;
    boolean[] dones = bt.dones;
    Advantages.compute(t, n, rewards, dones, values, bootstrap, null, recipe.gamma(), recipe.gaeLambda(), 1f, 1f, adv);
    if (plr != null) scoreEpisodes(bt);
    System.arraycopy(values, 0, latestValues, 0, values.length);
    boolean prio = recipe.segmentSampling().equals("prio");
    if (prio) Arrays.fill(ratio, 1f); // segments not trained yet in this update count as on-policy
    double gradNormSum = 0;
    int updates = 0;
    for (int epoch = 0; epoch < recipe.epochs(); epoch++) {
      if (!prio) {
        if (epoch > 0 && recipe.vtrace()) vtraceAdvantages(bt);
        // Value targets from the advantages of this pass and the values they were computed with.
        setReturns(epoch > 0 && recipe.vtrace() ? latestValues : values);
        shuffle(epoch);
      }
      for (int mb = 0; mb < n / b; mb++) {
        if (prio) {
          boolean first = epoch == 0 && mb == 0;
          if (!first && recipe.vtrace()) vtraceAdvantages(bt);
          setReturns(!first && recipe.vtrace() ? latestValues : values);
          double beta = recipe.prioBeta0() + (1 - recipe.prioBeta0()) * recipe.prioAlpha()
              * Math.min(1.0, (double) iteration / recipe.iterations());
          drawPrioritized(adv, t, n, recipe.prioAlpha(), beta, new Rng(Rng.mix(seed ^ PRIO_SALT, iteration, (long) epoch * n + mb)),
              perm, mb * b, b, mbWeight, segScore, taken);
        }
        gather(bt, mb);
        if (recipe.normAdvantages()) normalize(mbAdv);
        if (prio) {
          for (int step = 0; step < t; step++) for (int j = 0; j < b; j++) mbAdv[step * b + j] *= mbWeight[j];
        }
        if (shards == 1) {
          net.params().zeroGrad();
          net.forward(mbObs, mbReset, mbH0, t, b, mbLogits, mbValues);
        } else {
          pool.run(forwardTask, shards, 1);
        }
        PpoLoss.compute(t * b, A, mbLogits, mbValues, mbActions, mbOldLogp, mbAdv, mbRet, mbOldV, coefs,
            mbDLogits, mbDValues, mbRatio, st);
        if (shards == 1) {
          net.backward(mbDLogits, mbDValues);
        } else {
          pool.run(backwardTask, shards, 1);
          // The minibatch's gradient: the shards' sums added in shard order (independent of threads).
          float[] g = net.params().grad;
          for (int k = 1; k < shards; k++) {
            float[] gk = reps[k].params().grad;
            for (int q = 0; q < g.length; q++) g[q] += gk[q];
          }
        }
        gradNormSum += recipe.maxGradNorm() > 0
            ? Optimizer.clipGradNorm(net.params(), recipe.maxGradNorm())
            : Optimizer.clipGradNorm(net.params(), Float.POSITIVE_INFINITY);
        opt.step(lr);
        syncReplicas();
        updates++;
        scatter(mb);
      }
    }
    return gradNormSum / Math.max(1, updates);
  }

  /** Advantages with V-trace-clipped importance ratios and the latest values (PufferLib's recipe). */
  private void vtraceAdvantages(Batch bt) {
    Advantages.compute(t, n, bt.rewards, bt.dones, latestValues, bt.bootstrap, ratio, recipe.gamma(), recipe.gaeLambda(),
        recipe.rhoBar(), recipe.cBar(), adv);
  }

  /** Value targets: the current advantages plus the values they were computed with. */
  private void setReturns(float[] v) {
    for (int k = 0; k < returns.length; k++) returns[k] = adv[k] + v[k];
  }

  /**
   * Prioritized segment sampling (PufferLib): draws {@code count} distinct env segments of the
   * time-major [T][N] advantages {@code adv} into {@code out[off..off+count)}, segment i with
   * probability p_i proportional to (sum_t |adv|)^alpha + 1e-6 (successively, without replacement),
   * and writes each drawn segment's importance weight (N p_i)^-beta into {@code weights[0..count)},
   * p_i being its probability before any draw. {@code score} and {@code taken} are scratch of length N.
   */
  static void drawPrioritized(float[] adv, int t, int n, double alpha, double beta, Rng rng, int[] out, int off,
      int count, float[] weights, double[] score, boolean[] taken) {
    double total = 0;
    for (int i = 0; i < n; i++) {
      double sum = 0;
      for (int step = 0; step < t; step++) sum += Math.abs(adv[step * n + i]);
      score[i] = Math.pow(sum, alpha) + 1e-6;
      total += score[i];
      taken[i] = false;
    }
    double left = total;
    for (int j = 0; j < count; j++) {
      double u = rng.nextDouble() * left;
      int pick = -1;
      for (int i = 0; i < n; i++) {
        if (taken[i]) continue;
        pick = i;
        u -= score[i];
        if (u < 0) break;
      }
      taken[pick] = true;
      left -= score[pick];
      out[off + j] = pick;
      weights[j] = (float) Math.pow(n * score[pick] / total, -beta);
    }
  }

  /**
   * Level replay: adds max(A, 0) of every step to its env's running episode; an episode that ends
   * in this batch is queued with its mean (the paper's positive value loss), in time-major env order.
   * Only trainer-owned arrays are touched (a rollout may be running on the other thread).
   */
  private void scoreEpisodes(Batch bt) {
    for (int step = 0; step < t; step++) {
      for (int i = 0; i < n; i++) {
        int k = step * n + i;
        plrSum[i] += Math.max(adv[k], 0f);
        plrSteps[i]++;
        if (bt.dones[k]) {
          pendLevel[pendCount] = bt.level[k];
          pendScore[pendCount] = (float) (plrSum[i] / plrSteps[i]);
          pendSolved[pendCount] = bt.solved[k];
          pendReplayed[pendCount] = bt.replayed[k];
          pendReached[pendCount] = bt.reached[k];
          pendCount++;
          plrSum[i] = 0;
          plrSteps[i] = 0;
        }
      }
    }
  }

  /** Level replay: hands the queued scores to the sampler (no rollout is running) and takes the figures. */
  private void applyScores(PrioritizedLevelReplay.Counters before) {
    long re = 0, rs = 0, rt = 0, ne = 0, ns = 0, nt = 0;
    for (int q = 0; q < pendCount; q++) {
      plr.update(pendLevel[q], pendScore[q], pendSolved[q], pendReplayed[q]);
      int sv = pendSolved[q] ? 1 : 0, tg = pendReached[q] ? 1 : 0;
      if (pendReplayed[q]) {
        re++;
        rs += sv;
        rt += tg;
      } else {
        ne++;
        ns += sv;
        nt += tg;
      }
    }
    pendCount = 0;
    PrioritizedLevelReplay.Counters c = plr.counters();
    long resets = c.resets() - before.resets();
    plrStats = new PlrStats(plr.bufferCount(), resets == 0 ? Double.NaN : (double) (c.replays() - before.replays()) / resets,
        plr.meanScore(), plr.maxScore(), re, re == 0 ? Double.NaN : (double) rs / re, re == 0 ? Double.NaN : (double) rt / re, ne,
        ne == 0 ? Double.NaN : (double) ns / ne, ne == 0 ? Double.NaN : (double) nt / ne);
  }

  /** A permutation of env segments for this (iteration, epoch), from its own derived stream. */
  private void shuffle(int epoch) {
    for (int i = 0; i < n; i++) perm[i] = i;
    Rng rng = new Rng(Rng.mix(seed ^ SHUFFLE_SALT, iteration, epoch));
    for (int i = n - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
  }

  /** Copies the minibatch's segments ([T][B] from [T][N]). */
  private void gather(Batch bt, int mb) {
    for (int j = 0; j < b; j++) {
      int i = perm[mb * b + j];
      System.arraycopy(bt.h0, i * s, mbH0, j * s, s);
      for (int step = 0; step < t; step++) {
        int src = step * n + i, dst = step * b + j;
        System.arraycopy(bt.obs, src * O, mbObs, dst * O, O);
        mbReset[dst] = bt.resetBefore[src];
        mbActions[dst] = bt.actions[src];
        mbOldLogp[dst] = bt.logp[src];
        mbAdv[dst] = adv[src];
        mbRet[dst] = returns[src];
        mbOldV[dst] = bt.values[src];
      }
    }
  }

  /** Keeps the latest ratios and values for V-trace in the next pass. */
  private void scatter(int mb) {
    for (int j = 0; j < b; j++) {
      int i = perm[mb * b + j];
      for (int step = 0; step < t; step++) {
        ratio[step * n + i] = mbRatio[step * b + j];
        latestValues[step * n + i] = mbValues[step * b + j];
      }
    }
  }

  private static void normalize(float[] x) {
    double mean = 0;
    for (float v : x) mean += v;
    mean /= x.length;
    double var = 0;
    for (float v : x) var += (v - mean) * (v - mean);
    double std = Math.sqrt(var / Math.max(1, x.length - 1));
    for (int k = 0; k < x.length; k++) x[k] = (float) ((x[k] - mean) / (std + 1e-8));
  }

  // ---------------------------------------------------------------- validation

  /**
   * Greedy solve rate on {@code levels} (argmax actions, lowest index on ties; 120 steps; the first
   * episode of each level counts), as in scoring.
   */
  public static double validate(PolicyNet net, List<Level> levels) {
    if (levels.isEmpty()) return Double.NaN;
    int k = levels.size();
    BoxobanEnv venv = new BoxobanEnv(k, LevelSampler.inOrder(levels, k));
    venv.reset();
    float[] st = new float[k * net.stateSize()];
    float[] lg = new float[k * A], val = new float[k];
    int[] act = new int[k];
    boolean[] finished = new boolean[k];
    int solved = 0, left = k;
    int maxSteps = BoxobanEnv.Rewards.DEFAULT.maxSteps();
    for (int step = 0; step < maxSteps && left > 0; step++) {
      net.step(venv.obs, k, st, lg, val);
      for (int i = 0; i < k; i++) {
        int best = 0;
        for (int j = 1; j < A; j++) if (lg[i * A + j] > lg[i * A + best]) best = j;
        act[i] = finished[i] ? 0 : best;
      }
      venv.step(act);
      for (int i = 0; i < k; i++) {
        if (venv.dones[i] && !finished[i]) {
          finished[i] = true;
          left--;
          if (venv.lastSolved[i]) solved++;
        }
      }
    }
    return (double) solved / k;
  }

  // ---------------------------------------------------------------- checkpoint state

  /** Everything that determines the future of the run, except the recipe and seed. */
  public void save(DataOutputStream out) throws IOException {
    out.writeLong(iteration);
    out.writeLong(globalStep);
    out.writeLong(episodes);
    out.writeLong(solves);
    float[] p = net.params().data;
    out.writeInt(p.length);
    for (float v : p) out.writeFloat(v);
    out.writeLong(opt.steps());
    java.util.Map<String, float[]> os = new java.util.TreeMap<>(opt.state());
    out.writeInt(os.size());
    for (var e : os.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeInt(e.getValue().length);
      for (float v : e.getValue()) out.writeFloat(v);
    }
    ByteBuffer eb = ByteBuffer.allocate(BoxobanEnv.stateBytes(n));
    env.saveState(eb);
    out.writeInt(eb.capacity());
    out.write(eb.array());
    out.writeInt(state.length);
    for (float v : state) out.writeFloat(v);
    out.writeBoolean(pending);
    if (pending) cur.save(out);
    out.writeInt(winSolved.length);
    out.writeInt(winPos);
    out.writeInt(winCount);
    out.write(winSolved);
    for (float v : winReturn) out.writeFloat(v);
    for (short v : winLength) out.writeShort(v);
    if (plr != null) {
      for (int i = 0; i < n; i++) {
        out.writeDouble(plrSum[i]);
        out.writeInt(plrSteps[i]);
      }
      plr.save(out);
    }
  }

  public void load(DataInputStream in) throws IOException {
    iteration = in.readLong();
    globalStep = in.readLong();
    episodes = in.readLong();
    solves = in.readLong();
    float[] p = net.params().data;
    expect(in.readInt(), p.length, "parameter count");
    for (int k = 0; k < p.length; k++) p[k] = in.readFloat();
    opt.setSteps(in.readLong());
    java.util.Map<String, float[]> os = opt.state();
    expect(in.readInt(), os.size(), "optimizer state arrays");
    for (int k = 0; k < os.size(); k++) {
      String name = in.readUTF();
      float[] a = os.get(name);
      if (a == null) throw new IOException("checkpoint has optimizer state '" + name + "' this optimizer lacks");
      expect(in.readInt(), a.length, "optimizer state " + name);
      for (int q = 0; q < a.length; q++) a[q] = in.readFloat();
    }
    int eb = in.readInt();
    expect(eb, BoxobanEnv.stateBytes(n), "environment state size");
    byte[] e = new byte[eb];
    in.readFully(e);
    env.loadState(ByteBuffer.wrap(e));
    expect(in.readInt(), state.length, "recurrent state size");
    for (int k = 0; k < state.length; k++) state[k] = in.readFloat();
    pending = in.readBoolean();
    if (pending) {
      if (!recipe.overlap()) throw new IOException("checkpoint holds a pending batch but the recipe does not overlap");
      cur.load(in);
    }
    if (actor != net) System.arraycopy(net.params().data, 0, actor.params().data, 0, net.params().size());
    expect(in.readInt(), winSolved.length, "statistics window");
    winPos = in.readInt();
    winCount = in.readInt();
    in.readFully(winSolved);
    for (int k = 0; k < winReturn.length; k++) winReturn[k] = in.readFloat();
    for (int k = 0; k < winLength.length; k++) winLength[k] = in.readShort();
    if (plr != null) {
      for (int i = 0; i < n; i++) {
        plrSum[i] = in.readDouble();
        plrSteps[i] = in.readInt();
      }
      plr.load(in);
    }
    if (in.read() != -1) throw new IOException("checkpoint holds more state than this recipe's trainer (another level sampler?)");
  }

  private static void expect(int got, int want, String what) throws IOException {
    if (got != want) throw new IOException("checkpoint does not match this recipe: " + what + " " + got + ", expected " + want);
  }
}
