package dev.speedrun.rl;

import dev.speedrun.UserError;
import dev.speedrun.nn.Schedule;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every constant of a training run, in one place (as CleanRL's {@code Args}). {@link #PINNED} is
 * what {@code ./speedrun} and {@code ./speedrun train} run; {@link #with(Map)} applies
 * {@code --set key=value} overrides for experiments (such a run is marked overridden in its log and
 * cannot become a record).
 *
 * <p>Shapes: one iteration collects {@code numEnvs x horizon} environment steps; each of
 * {@code epochs} passes over them is cut into minibatches of {@code minibatchSegments} whole env
 * segments of {@code horizon} steps, trained with BPTT from the recurrent state at segment start.
 */
public record Recipe(
    // --- Rollout ---
    /** N: environments stepped together; also the number of segments per iteration. */
    int numEnvs,
    /** T: steps per environment per iteration (segment length for BPTT). */
    int horizon,
    /** Environment steps of the whole run (rounded up to whole iterations). */
    long totalSteps,
    /**
     * Rewards are multiplied by {@code rewardScale}, then clamped to [-rewardClamp, rewardClamp],
     * before advantage estimation (the environment's own rewards, episode returns and scores are
     * never changed).
     */
    float rewardClamp,

    // --- Advantages ---
    /** Discount. */
    float gamma,
    /** GAE lambda. */
    float gaeLambda,
    /** Recompute advantages before every epoch after the first with V-trace importance weights. */
    boolean vtrace,
    /** V-trace rho-bar: clip of the importance ratio that weights each TD error. */
    float rhoBar,
    /** V-trace c-bar: clip of the importance ratio that weights the trace. */
    float cBar,
    /** Normalize advantages to zero mean, unit variance within each minibatch. */
    boolean normAdvantages,

    // --- PPO loss ---
    /** Policy ratio clip epsilon. */
    float clipCoef,
    /** Clip the value loss around the rollout values with the same epsilon (PPO2 style). */
    boolean clipValueLoss,
    /** Value loss weight (the value loss is 0.5 * squared error). */
    float valueCoef,
    /** Entropy bonus weight. */
    float entropyCoef,
    /** Passes over each iteration's data (the replay ratio). */
    int epochs,
    /** Env segments per minibatch (numEnvs must be a multiple). */
    int minibatchSegments,
    /**
     * Overlap rollout and learning on two threads: the actor collects the next batch with the
     * previous parameters while the learner trains (one update of policy lag). Off: both phases are
     * split over the worker pool instead. Pinned off: overlap measured faster in steps/s on the
     * shared 2-core machine ({@code ./speedrun bench train}: 9.8k vs 7.1k steps/s for this policy,
     * 74k vs 19k for H=64 L=1), but the lag cost more than that in learning per step (LearningTest's
     * setting: held-out greedy solve 0.29 vs 0.72 after 120k steps); see docs/experiments.md.
     */
    boolean overlap,

    // --- Optimizer ---
    /** "adamw" or "muon" (Muon on matrices, AdamW on the rest). */
    String optimizer,
    /** Peak learning rate. */
    float learningRate,
    /** "constant", "linear" (anneal to 0, CleanRL) or "cosine" (to 0). */
    String lrSchedule,
    /** Iterations of linear warm-up from 0 before the schedule. */
    int warmupIterations,
    /** Adam beta1. */
    float beta1,
    /** Adam beta2. */
    float beta2,
    /** Adam epsilon. */
    float adamEps,
    /** Decoupled weight decay. */
    float weightDecay,
    /** Muon's momentum (Nesterov), for the recurrent matrices when optimizer is "muon". */
    float muonMomentum,
    /** Global gradient-norm clip (0 disables). */
    float maxGradNorm,

    // --- Policy ---
    /**
     * Policy family ("default" = nn.DefaultPolicy, "conv" = nn.ConvPolicy, "convgru" = nn.ConvGruPolicy: a
     * convolutional GRU on the board's 8 x 8 interior with {@code channels} encoder and state channels
     * and a head of width {@code hidden}, {@code ticks} cell updates per step; it ignores layers, convs and crop, and runs one thread per
     * replica, so use shards = threads).
     */
    String policy,
    /** Width of the recurrent layers. */
    int hidden,
    /** Number of recurrent layers. */
    int layers,
    /** Channels of both 3x3 convolutions of the "conv" policy (unused by "default"). */
    int channels,

    // --- Bookkeeping ---
    /**
     * Training level set: a split relative to the Boxoban directory (e.g. {@code unfiltered/train}),
     * or a path to a level file or directory (absolute, {@code ./..}, {@code ../..} or {@code *.txt};
     * its last {@code valLevels} levels are then held out for validation), see {@link TrainingLevels}.
     */
    String trainLevels,
    /** Validate every this many iterations (0 = only at the end). */
    int valInterval,
    /**
     * Size of the fixed validation sample from unfiltered/valid (greedy, 120 steps, as in scoring);
     * with a {@code trainLevels} path, the number of its last levels held out for validation.
     */
    int valLevels,
    /** Write a checkpoint every this many iterations (and always at the end). */
    int checkpointInterval,
    /** Episodes in the rolling window of training solve rate, return and length. */
    int statsWindow,

    // --- Level sampling (within trainLevels; see env.PrioritizedLevelReplay) ---
    /**
     * How each episode's training level is chosen: "uniform" (independently per seed, env and
     * episode) or "plr", Prioritized Level Replay (Jiang, Grefenstette, Rocktäschel 2021): replay
     * levels whose last episode had a high mean positive GAE advantage (the paper's "positive value
     * loss"), mixed with new uniform draws. Sampling only: the same levels, rewards and episodes.
     * A level's score is set when its episode ends, from all of its steps (an episode cut by the
     * rollout horizon keeps accumulating into the next batch), using the first epoch's GAE
     * advantages; scores are applied between iterations in a fixed order (with overlap, one
     * rollout later).
     */
    String levelSampling,
    /** plr: probability that a reset replays a buffered level (once plrMinBuffer levels are buffered). */
    float plrReplayProb,
    /** plr: temperature beta of the rank prioritisation, P_S ~ (1/rank)^(1/beta) (0.1 as in the paper's Procgen runs). */
    float plrTemperature,
    /** plr: staleness weight rho of the mixture P = (1-rho) P_S + rho P_C (0.1 as in the paper). */
    float plrStaleness,
    /**
     * plr: most levels kept in the buffer of seen levels; when full, a new level replaces the
     * lowest-scoring one if its score is higher.
     */
    int plrBufferSize,
    /** plr: no replay until the buffer holds this many levels; 0 (the default) means plrBufferSize, a full buffer. */
    int plrMinBuffer,

    // --- Minibatch sampling ---
    /**
     * How each minibatch picks its env segments: "shuffle" (every pass a permutation of all N, cut
     * into N/B minibatches) or "prio", PufferLib's prioritized segment sampling: each of the N/B
     * minibatches of a pass draws B distinct segments with probability proportional to
     * (sum over the segment of |advantage|)^prioAlpha, and scales each segment's normalized
     * advantages by the importance weight (N p)^-beta, beta annealed from prioBeta0 towards 1 over
     * the run (beta = prioBeta0 + (1 - prioBeta0) prioAlpha progress, as PufferLib). With V-trace,
     * "prio" recomputes advantages before every minibatch (not only every pass) from the latest
     * ratios and values of the segments trained so far, as PufferLib does.
     */
    String segmentSampling,
    /** prio: exponent alpha on each segment's summed |advantage| (0 = uniform draws). */
    float prioAlpha,
    /** prio: the importance-weight exponent at the start of the run. */
    float prioBeta0,

    // --- Parallelism ---
    /**
     * Data-parallel shards: the rollout's environments and every minibatch's segments are split
     * into this many equal parts, each run by its own replica of the policy on one thread of the
     * pool (no synchronisation inside a forward or backward pass, which is what limits the split
     * over rows on two cores); the shards' weight gradients are summed in shard order. The result
     * depends on the shard count (the gradient's summation order), never on the thread count; 1 =
     * one policy whose passes are split over the pool by rows. Not with overlap.
     */
    int shards,
    /**
     * Training rewards are the environment's times this factor, then clamped to +-rewardClamp. The
     * benchmark's rewards (+0.25 the first time a target gets a box, +1 on the solve, -1 at the
     * timeout) pass 1 only on a solving step that also fills a target (1.25, clamped to 1), so at
     * 0.1 every training reward is a tenth: the returns shrink against the value loss's weight and
     * the entropy bonus, nothing else changes.
     */
    float rewardScale,
    /**
     * policy=conv: the number of 3x3 convolutions (2..8): conv1 on the observation planes, then
     * convs - 1 of channels to channels before the projection (receptive field 2 convs + 1 cells).
     */
    int convs,
    /**
     * policy=conv: the maps after conv1 cover only the board's 8 x 8 interior (every Boxoban level
     * has a wall border; conv1 still reads it), so the later convolutions and the projection do
     * about 1.4x fewer multiply-adds per step (nn.ConvPolicy.Config#crop).
     */
    boolean crop,
    /**
     * policy=convgru: updates of the ConvGRU per environment step (1..16; DRC's ticks): the step's
     * encoding is fed to the cell this many times, each tick's state the next one's previous state;
     * each tick beyond the first costs the hidden convolution again (nn.ConvGruPolicy).
     */
    int ticks,
    /**
     * policy=convgru: the hidden convolution as a depthwise 3x3 on the state followed by a 1x1 to the
     * gates (9K + 3K^2 multiply-adds per cell and tick instead of 27K^2, the same 3 x 3 view;
     * nn.ConvGruPolicy.Config#separable).
     */
    boolean separable,
    /**
     * policy=convgru: the input convolution (encoding to gates) likewise as a depthwise 3x3 then a
     * 1x1 (9C + 3KC multiply-adds per cell, once per step, instead of 27KC).
     */
    boolean separableInput,
    /**
     * The entropy bonus at the run's last iteration: from {@code entropyCoef} at the first iteration
     * it follows a cosine to this value over the whole run ({@link #entropyCoefAt}); negative (the
     * default) keeps {@code entropyCoef} throughout. For the late stage, where the policy's entropy
     * stays high (0.58-0.65 nats for the pinned policy from 100M to 398M) while the learning rate
     * decays.
     */
    float entropyCoefEnd,
    /**
     * Early stop on validation (DESIGN.md: "a recipe may stop early on validation, never on test"):
     * the run ends, as if its last iteration had come, after the first in-training validation whose
     * greedy solve rate on the {@code valLevels} levels is at least this; 0 = never (run all
     * {@code totalSteps}). The schedule still spans {@code totalSteps}.
     */
    float stopValSolveRate,
    /**
     * policy=convgru: DRC's pool-and-inject (Guez et al. 2019): every tick, the previous state's
     * channel means and maxima over the 64 cells go through a linear map to the gates and are added
     * at every cell, so each tick sees a summary of the whole board (6K^2 multiply-adds per tick;
     * nn.ConvGruPolicy.Config#pool).
     */
    boolean pool) {

  /** Fields added after checkpoints were first written, with the value older runs had in effect. */
  private static final Map<String, Object> LATER_FIELDS = laterFields();

  private static Map<String, Object> laterFields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("levelSampling", "uniform");
    m.put("plrReplayProb", 0.5f);
    m.put("plrTemperature", 0.1f);
    m.put("plrStaleness", 0.1f);
    m.put("plrBufferSize", 4000);
    m.put("plrMinBuffer", 0);
    m.put("segmentSampling", "shuffle");
    m.put("prioAlpha", 0.8f);
    m.put("prioBeta0", 0.2f);
    m.put("shards", 1);
    m.put("rewardScale", 1f);
    m.put("convs", 2);
    m.put("crop", false);
    m.put("ticks", 1);
    m.put("separable", false);
    m.put("separableInput", false);
    m.put("entropyCoefEnd", -1f);
    m.put("stopValSolveRate", 0f);
    m.put("pool", false);
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * The recipe a run directory's {@code run.json} stores in full (field name to value), so that a
   * resumed run keeps its recipe even after {@link #PINNED} changed; fields the run predates take
   * the values such runs had in effect.
   */
  public static Recipe fromStored(Map<String, ?> fields) {
    Map<String, String> all = new LinkedHashMap<>();
    LATER_FIELDS.forEach((k, v) -> all.put(k, String.valueOf(v)));
    fields.forEach((k, v) -> all.put(k, String.valueOf(v)));
    return BASE.with(all);
  }

  /**
   * The first pinned recipe (issue 2): the gather-embedding policy (H 128, L 2, 151k parameters),
   * AdamW, 30M steps; it never solved a validation level and was replaced as the pinned recipe by
   * the conv candidate. Kept as the base the other recipes and small test configurations are written
   * against (its values are what {@code --set} overrides of those runs changed).
   */
  public static final Recipe BASE = new Recipe(
      256, 64, 30_000_000L, 1f,
      0.99f, 0.95f, true, 1f, 1f, true,
      0.2f, true, 0.5f, 0.01f, 2, 64, false,
      "adamw", 1e-3f, "cosine", 5, 0.9f, 0.999f, 1e-8f, 0f, 0.95f, 0.5f,
      "default", 128, 2, 8,
      "unfiltered/train", 50, 200, 50, 1000,
      "uniform", 0.5f, 0.1f, 0.1f, 4000, 0,
      "shuffle", 0.8f, 0.2f, 1, 1f, 2, false, 1, false, false, -1f, 0f, false);

  /**
   * The LLM-track agent (issue 6, "Our agents on the same puzzles"): trained from scratch only on the
   * project's generated LLM-track train puzzles (6-7 sided, 2-3 boxes, padded with walls to 10x10),
   * scored by {@code ./speedrun llm eval --agent} on the benchmark's eval puzzles with sampled
   * episodes. The environment's rules and rewards are the benchmark's (120-step episodes). Used with
   * {@code train --imitate DATASET.jsonl --imitate-epochs 5}: the policy is cloned from the
   * dataset's gold answers, which is what makes it good in minutes (PPO from scratch did not learn
   * in the steps this machine gives in minutes; see docs/experiments.md, "LLM-track agent"). Fields
   * that differ from {@link #BASE}, and why:
   * <ul>
   *   <li>{@code numEnvs} 128, {@code horizon} 32, {@code minibatchSegments} 32: puzzles take 5-14
   *       moves, so a 32-step segment holds whole episodes; small iterations.
   *   <li>{@code totalSteps} 4,096: one PPO iteration after the clone, so the run directory,
   *       validation and checkpoint come from the standard loop; longer PPO (400k steps) lowered the
   *       held-out solve rate in the experiments.
   *   <li>{@code gamma} 0.97: also the clone's value target, gamma^(steps to the solve).
   *   <li>{@code learningRate} 2e-3 (PPO; the clone has its own, {@code --imitate-lr}).
   *   <li>{@code layers} 2: the second minGRU layer raised the clone's per-step accuracy from about
   *       0.85 to 0.92.
   *   <li>{@code trainLevels} {@code ./runs/llm-agent-train.txt}: written by
   *       {@code ./speedrun llm dataset --split train --count 200000 --seed 2 --exclude
   *       ../shared/data/speedrun-llm/sokoban_eval.jsonl --out runs/llm-agent-train.jsonl
   *       --boxoban-out runs/llm-agent-train.txt}; its last {@code valLevels} = 500 puzzles are held
   *       out for validation (never the benchmark's eval file).
   *   <li>{@code valInterval} 10, {@code checkpointInterval} 0: a short run.
   * </ul>
   */
  public static final Recipe LLM_AGENT = new Recipe(
      128, 32, 4_096L, 1f,
      0.97f, 0.95f, true, 1f, 1f, true,
      0.2f, true, 0.5f, 0.01f, 2, 32, false,
      "adamw", 2e-3f, "cosine", 5, 0.9f, 0.999f, 1e-8f, 0f, 0.95f, 0.5f,
      "default", 128, 2, 8,
      "./runs/llm-agent-train.txt", 10, 500, 0, 1000,
      "uniform", 0.5f, 0.1f, 0.1f, 4000, 0,
      "shuffle", 0.8f, 0.2f, 1, 1f, 2, false, 1, false, false, -1f, 0f, false);

  /**
   * The record candidate of sessions 2-5 (selectable with {@code --recipe conv}): {@link #BASE}'s
   * algorithm with the convolutional policy. Fields that differ, and why (docs/experiments.md, session 2):
   * <ul>
   *   <li>{@code policy} conv, {@code channels} 16, {@code layers} 1 (hidden stays 128; about 262k
   *       parameters): on real levels it learned far more per step than the gather-embedding policy
   *       (rolling target rate 0.87 and return -0.52 after 12M steps, where the pinned default policy
   *       had -0.77 at 2.65M and a small default policy -0.70 at 27M); C = 16 is one AVX-512 vector.
   *   <li>{@code totalSteps} 300M: the published record's policy needed about 300M steps; the cosine
   *       schedule spans the whole run, so a run meant to be resumed over several sessions keeps a
   *       nearly constant rate for its first tens of millions of steps.
   * </ul>
   * Tried on top of it and rejected (worse on new levels): Prioritized Level Replay (memorises the
   * replayed levels), learning rate 3e-3 and 4 epochs of small minibatches (both collapse the
   * entropy early).
   */
  public static final Recipe CONV = BASE.with(Map.of("policy", "conv", "channels", "16", "layers", "1",
      "totalSteps", "300000000"));

  /**
   * The pinned recipe of sessions 8-19 (selectable with {@code --recipe mingru}; the run kept in
   * {@code kept/pinned-seed42} is this recipe, seed 42, to 398.8M steps, greedy test 0.535):
   * {@link #CONV} with the changes that each learned more per step or per minute against it, one at
   * a time on seed 42 (docs/experiments.md, sessions 4-6):
   * <ul>
   *   <li>{@code optimizer} muon (Muon on conv2.., proj and the minGRU matrices): ahead of AdamW from
   *       20M steps (K against A).
   *   <li>{@code hidden} 256: 1.65x more per step than H 128 (N against K).
   *   <li>{@code layers} 2: a second minGRU layer, about 1.2x more per step than N to 52M steps (O),
   *       at about 10% more time per step.
   *   <li>{@code convs} 4: two more 3x3 convolutions (receptive field 9 x 9 before the projection):
   *       slower to 8M steps, then ahead of N, about 1.3x per step at 17M (P).
   *   <li>{@code crop} true: the maps after conv1 cover the 8 x 8 interior inside the wall border
   *       every Boxoban level has; 1.4x fewer multiply-adds per step for about 15% less learning
   *       per step than O (S), so about 1.2x per minute.
   * </ul>
   * and, for the record attempt of session 8 (docs/experiments.md, session 8), changes that only
   * pace or end the run:
   * <ul>
   *   <li>{@code shards} 2: the same algorithm data-parallel over the two cores (only the gradient's
   *       summation order differs), 1.8-2.0x one thread where rows split gave 1.5-1.7x.
   *   <li>{@code totalSteps} 500M (the published record's length): session 7's 300M run of this
   *       recipe (seed 42, lost with its machine at 126.6M) learned like the published policy, which
   *       needed about 500M steps to clear the bar.
   *   <li>{@code valLevels} 1000, {@code valInterval} 200, {@code stopValSolveRate} 0.78: validate
   *       on 1,000 levels every 3.3M steps (about 3 s, 1% of the clock) and stop at 0.78, well clear
   *       of the bar (a lower CI above 0.70 on 1,000 test levels needs about 0.73), so a run that
   *       gets there early does not spend the rest of the schedule.
   * </ul>
   * About 1.04M parameters, 1.18M multiply-adds per forward step.
   */
  public static final Recipe MINGRU = CONV.with(Map.of("optimizer", "muon", "hidden", "256", "layers", "2", "convs", "4",
      "crop", "true", "shards", "2", "totalSteps", "500000000", "valLevels", "1000", "valInterval", "200",
      "stopValSolveRate", "0.78"));

  /**
   * The pinned recipe: what {@code ./speedrun} runs, and the only recipe a record can be made with.
   * {@link #MINGRU} (its algorithm, optimizer, pace and stopping rule unchanged) with a DRC-style
   * policy in place of the convolutional encoder and minGRU (docs/experiments.md, sessions 12-20):
   * <ul>
   *   <li>{@code policy} convgru: a convolutional GRU whose state is a 16-channel map of the 8 x 8
   *       interior (a 3 x 3 convolution from the encoding and from the state to the gates), the
   *       head of width {@code hidden} 256 on the final state; {@code channels} 16 as before.
   *       It ignores {@code layers}, {@code convs} and {@code crop} (kept at MINGRU's values so
   *       runs that set the three fields below on MINGRU have exactly this recipe).
   *   <li>{@code ticks} 3: three cell updates per step; one tick learned less per step than MINGRU,
   *       three learned more from 30M steps on (0.59x MINGRU's steps to 35% training solve, kept
   *       in {@code kept/convgru-16x256-t3n}), at about half its steps per second.
   *   <li>{@code pool} true: DRC's pool-and-inject, each tick's gates see the state's channel
   *       means and maxima over the board; at the same speed, 0.55-0.71x the steps of ticks 3
   *       alone to 1-4% training solve in its first run ({@code kept/convgru-16x256-t3p}) and
   *       0.80-0.94x in its second ({@code kept/record3-seed42}), which then needed 0.96x falling
   *       to 0.77x those of ticks 3's longer run ({@code kept/convgru-16x256-t3n}) to 5-35%: a
   *       gain that grows, on one seed; from 40% training solve (86.5M steps) it is ahead of
   *       MINGRU on the training clock too, and it reached 55% in 0.31x MINGRU's steps (124.0M
   *       against 396.8M; 507 against 656 minutes) and 60%, which MINGRU never reached in 398.8M,
   *       at 145.2M, 65% at 186.2M, 70% at 254.4M; greedy validation 0.60 at 163.8M, 0.61-0.65
   *       to 216.3M, 0.63-0.69 to 249.0M, 0.66-0.71 to 321.1M, then 0.70-0.73 to 500M (0.731
   *       at 376.8M, its best; checks on 1,000 levels); its final policy scored greedy 0.746 on
   *       unfiltered/test, lower bootstrap CI 0.719, after 36:13:34 of training clock.
   * </ul>
   * About 0.28M parameters (0.26M of them the head), 2.12M multiply-adds per forward step; 3.0-5.4k
   * steps/s on this project's two cores (the minGRU recipe: 1.04M, 1.18M, about 10.7k).
   */
  public static final Recipe PINNED = MINGRU.with(Map.of("policy", "convgru", "ticks", "3", "pool", "true"));

  /** Named recipes selectable with {@code ./speedrun train --recipe NAME}. */
  public static final Map<String, Recipe> NAMED = namedRecipes();

  private static Map<String, Recipe> namedRecipes() {
    Map<String, Recipe> m = new LinkedHashMap<>();
    m.put("pinned", PINNED);
    m.put("mingru", MINGRU);
    m.put("base", BASE);
    m.put("llm-agent", LLM_AGENT);
    m.put("conv", CONV);
    return java.util.Collections.unmodifiableMap(m);
  }

  /** The named recipe {@code name}; an unknown name is a user error listing the names. */
  public static Recipe named(String name) {
    Recipe r = NAMED.get(name);
    if (r == null) throw new UserError("--recipe " + name + ": no such recipe (recipes: " + String.join(", ", NAMED.keySet()) + ")");
    return r;
  }

  /**
   * The fields where this recipe differs from {@code base}, as {@code --set} pairs, so that
   * {@code base.with(differencesFrom(base))} equals this recipe (a run's stored overrides).
   */
  public Map<String, String> differencesFrom(Recipe base) {
    Map<String, String> out = new LinkedHashMap<>();
    Map<String, Object> b = base.asMap();
    asMap().forEach((k, v) -> {
      if (!v.equals(b.get(k))) out.put(k, String.valueOf(v));
    });
    return out;
  }

  public Recipe {
    if (numEnvs < 1 || horizon < 1) throw new UserError("recipe: numEnvs and horizon must be positive");
    if (minibatchSegments < 1 || numEnvs % minibatchSegments != 0) {
      throw new UserError("recipe: numEnvs (" + numEnvs + ") must be a multiple of minibatchSegments (" + minibatchSegments + ")");
    }
    if (!policy.equals("default") && !policy.equals("conv") && !policy.equals("convgru")) {
      throw new UserError("recipe: policy must be default, conv or convgru, not '" + policy + "'");
    }
    if (epochs < 1) throw new UserError("recipe: epochs must be at least 1");
    if (!optimizer.equals("adamw") && !optimizer.equals("muon")) throw new UserError("recipe: optimizer must be adamw or muon, not '" + optimizer + "'");
    if (!lrSchedule.equals("constant") && !lrSchedule.equals("linear") && !lrSchedule.equals("cosine")) {
      throw new UserError("recipe: lrSchedule must be constant, linear or cosine, not '" + lrSchedule + "'");
    }
    if (valLevels < 0 || valInterval < 0 || checkpointInterval < 0 || statsWindow < 1) {
      throw new UserError("recipe: valLevels, valInterval, checkpointInterval must be >= 0 and statsWindow >= 1");
    }
    if (!levelSampling.equals("uniform") && !levelSampling.equals("plr")) {
      throw new UserError("recipe: levelSampling must be uniform or plr, not '" + levelSampling + "'");
    }
    if (!(plrReplayProb >= 0 && plrReplayProb <= 1) || !(plrStaleness >= 0 && plrStaleness <= 1) || !(plrTemperature > 0)) {
      throw new UserError("recipe: plrReplayProb and plrStaleness must be in [0, 1] and plrTemperature positive");
    }
    if (!segmentSampling.equals("shuffle") && !segmentSampling.equals("prio")) {
      throw new UserError("recipe: segmentSampling must be shuffle or prio, not '" + segmentSampling + "'");
    }
    if (!(prioAlpha >= 0) || !(prioBeta0 >= 0 && prioBeta0 <= 1)) {
      throw new UserError("recipe: prioAlpha must be >= 0 and prioBeta0 in [0, 1]");
    }
    if (shards < 1 || numEnvs % shards != 0 || minibatchSegments % shards != 0) {
      throw new UserError("recipe: shards (" + shards + ") must be positive and divide numEnvs (" + numEnvs
          + ") and minibatchSegments (" + minibatchSegments + ")");
    }
    if (shards > 1 && overlap) throw new UserError("recipe: shards > 1 does not combine with overlap");
    if (!(stopValSolveRate >= 0 && stopValSolveRate <= 1)) throw new UserError("recipe: stopValSolveRate must be in [0, 1] (0 = never stop early)");
    if (convs < 2 || convs > 8) throw new UserError("recipe: convs must be in 2..8, got " + convs);
    if (ticks < 1 || ticks > 16) throw new UserError("recipe: ticks must be in 1..16, got " + ticks);
    if (!Float.isFinite(entropyCoefEnd)) throw new UserError("recipe: entropyCoefEnd must be a number (negative = no schedule), got " + entropyCoefEnd);
    if (!(rewardScale > 0) || Float.isInfinite(rewardScale) || !(rewardClamp > 0)) {
      throw new UserError("recipe: rewardScale and rewardClamp must be positive and finite");
    }
    if (plrBufferSize < 1 || plrMinBuffer < 0 || plrMinBuffer > plrBufferSize) {
      throw new UserError("recipe: plrBufferSize must be positive and plrMinBuffer (" + plrMinBuffer + ") between 0 (= full) and plrBufferSize ("
          + plrBufferSize + ")");
    }
  }

  /**
   * Whether a recipe text stored in a checkpoint ({@link #toString()}) describes this recipe: equal,
   * or written before the {@link #LATER_FIELDS} existed while this recipe keeps them at the values
   * such runs had in effect, so that older runs still resume.
   */
  public boolean matchesStored(String stored) {
    if (stored.equals(toString())) return true;
    if (!stored.startsWith("Recipe[") || !stored.endsWith("]")) return false;
    Map<String, String> fields = new LinkedHashMap<>();
    String body = stored.substring("Recipe[".length(), stored.length() - 1);
    for (String kv : body.split(", (?=[A-Za-z0-9]+=)")) {
      int eq = kv.indexOf('=');
      if (eq <= 0) return false;
      fields.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    Map<String, Object> mine = asMap();
    if (!mine.keySet().containsAll(fields.keySet())) return false;
    for (var e : mine.entrySet()) {
      String v = fields.get(e.getKey());
      if (v == null) {
        // Written before this field existed: only the value such runs had in effect matches.
        if (!LATER_FIELDS.containsKey(e.getKey()) || !e.getValue().equals(LATER_FIELDS.get(e.getKey()))) return false;
      } else if (!v.equals(String.valueOf(e.getValue()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The entropy bonus of iteration {@code iteration} (0-based): {@code entropyCoef}, or with
   * {@code entropyCoefEnd >= 0} a cosine from entropyCoef at the first iteration to entropyCoefEnd
   * at the last.
   */
  public float entropyCoefAt(long iteration) {
    if (entropyCoefEnd < 0) return entropyCoef;
    double x = iterations() <= 1 ? 1 : Math.min(1.0, (double) iteration / (iterations() - 1));
    // Weights rather than nn.Schedule.cosine's min + (max - min) * ...: with min not 0 the float
    // difference is rounded, so the first value misses max (the learning rate, min 0, keeps that form:
    // its bits are in every kept run). w is 1 at the first iteration and 0 at the last: exactly
    // entropyCoef, then entropyCoefEnd.
    double w = 0.5 * (1 + Math.cos(Math.PI * x));
    return (float) (w * entropyCoef + (1 - w) * entropyCoefEnd);
  }

  /** Environment steps per iteration. */
  public int stepsPerIteration() { return numEnvs * horizon; }

  /** Iterations of the whole run. */
  public long iterations() { return (totalSteps + stepsPerIteration() - 1) / stepsPerIteration(); }

  /** Learning rate by iteration (0-based): warm-up, then the schedule over the remaining iterations. */
  public Schedule schedule() {
    long rest = Math.max(1, iterations() - warmupIterations);
    Schedule inner = switch (lrSchedule) {
      case "linear" -> Schedule.linear(learningRate, 0f, rest);
      case "cosine" -> Schedule.cosine(learningRate, 0f, rest);
      default -> Schedule.constant(learningRate);
    };
    return warmupIterations > 0 ? Schedule.warmup(warmupIterations, inner) : inner;
  }

  /** Fields by name, in declaration order (for logs and summaries). */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    for (RecordComponent c : Recipe.class.getRecordComponents()) {
      try {
        m.put(c.getName(), c.getAccessor().invoke(this));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return m;
  }

  /** {@code --set KEY=VALUE} arguments as an ordered map (later ones win); a malformed one is a user error. */
  public static Map<String, String> parseSets(java.util.List<String> sets) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String kv : sets == null ? java.util.List.<String>of() : sets) {
      int eq = kv.indexOf('=');
      if (eq <= 0) throw new UserError("--set " + kv + ": expected KEY=VALUE");
      out.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
    }
    return out;
  }

  /** A copy with {@code key=value} overrides; unknown keys and unparsable values are user errors. */
  public Recipe with(Map<String, String> overrides) {
    RecordComponent[] cs = Recipe.class.getRecordComponents();
    Object[] args = new Object[cs.length];
    Map<String, Object> cur = asMap();
    for (String k : overrides.keySet()) {
      if (!cur.containsKey(k)) throw new UserError("--set " + k + ": no such recipe field (fields: " + String.join(", ", cur.keySet()) + ")");
    }
    Class<?>[] types = new Class<?>[cs.length];
    for (int i = 0; i < cs.length; i++) {
      types[i] = cs[i].getType();
      String v = overrides.get(cs[i].getName());
      args[i] = v == null ? cur.get(cs[i].getName()) : parse(cs[i].getName(), types[i], v);
    }
    try {
      return Recipe.class.getDeclaredConstructor(types).newInstance(args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      if (e.getCause() instanceof UserError u) throw u;
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object parse(String key, Class<?> type, String v) {
    try {
      if (type == int.class) return Integer.parseInt(v.replace("_", ""));
      if (type == long.class) return (long) Double.parseDouble(v.replace("_", ""));
      if (type == float.class) return Float.parseFloat(v);
      if (type == boolean.class) {
        if (v.equals("true") || v.equals("false")) return Boolean.parseBoolean(v);
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new UserError("--set " + key + "=" + v + ": not a valid " + type.getSimpleName());
    }
  }

  /** One line per field, {@code name = value}, for log headers. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    asMap().forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    return sb.toString();
  }
}
