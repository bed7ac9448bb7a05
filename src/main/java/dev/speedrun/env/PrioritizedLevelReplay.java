package dev.speedrun.env;

import dev.speedrun.sokoban.LevelStore;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Prioritized Level Replay (Jiang, Grefenstette, Rocktäschel 2021, "Prioritized Level Replay",
 * arXiv:2010.03934) over a {@link LevelStore}, with a bounded buffer of seen levels as in its
 * successors (Robust PLR, ACCEL) since the store (900,000 levels) is far larger than any buffer.
 *
 * <p>At every reset: once the buffer holds at least {@code minBuffer} levels, with probability
 * {@code replayProb} a buffered level is replayed, drawn from
 *
 * <pre>
 *   P(l_i) = (1 - rho) * P_S(l_i) + rho * P_C(l_i)
 *   P_S(l_i) = h(S_i)^(1/beta) / sum_j h(S_j)^(1/beta),  h(S_i) = 1 / rank(S_i)   (rank 1 = highest score)
 *   P_C(l_i) = (c - C_i) / sum_j (c - C_j)                                    (staleness)
 * </pre>
 *
 * where c counts the resets so far and C_i is the reset count when level i was last sampled (or
 * inserted); ranks among equal scores go to the lower store index. Otherwise a new level is drawn
 * uniformly from the store, independently per (seed, env, episode): exactly the draw of
 * {@link LevelSampler#uniform(LevelStore, long)} with the same seed, so with {@code replayProb = 0}
 * this sampler plays the uniform sampler's levels. A "new" level may happen to be in the buffer
 * already (rare with 900,000 levels); it is then scored like a replay.
 *
 * <p>Scores come from the trainer through {@link #update} (the paper's "positive value loss": the
 * mean over an episode's steps of max(GAE advantage, 0)), at fixed points between rollouts and in a
 * fixed order, never while a rollout runs concurrently; the score of a buffered level is replaced
 * (the paper's default, alpha = 1). A level not yet buffered is inserted while the buffer has room;
 * when it is full the new level replaces the lowest-scoring one only if its score is higher (the
 * lowest of old and new is dropped; among equal lowest scores, the lowest slot goes).
 *
 * <p>Deterministic: the replay decisions and draws come from the sampler's own {@link Rng} stream,
 * consumed in the order of resets, which {@link BoxobanEnv#step} performs in environment order;
 * the whole state (buffer, scores, staleness clock, current level per env, rng) is saved by
 * {@link #save}. The distribution P_S is cached and rebuilt only after scores changed.
 */
public final class PrioritizedLevelReplay extends LevelSampler.StoreSampler {
  /**
   * The constants of the method.
   *
   * @param replayProb probability that a reset replays a buffered level (once minBuffer is reached)
   * @param temperature beta of the rank prioritisation
   * @param staleness rho, the weight of the staleness distribution in the mixture
   * @param bufferSize most levels kept
   * @param minBuffer levels the buffer must hold before any replay
   */
  public record Settings(float replayProb, float temperature, float staleness, int bufferSize, int minBuffer) {
    public Settings {
      if (!(replayProb >= 0 && replayProb <= 1)) throw new IllegalArgumentException("replay probability must be in [0, 1]");
      if (!(temperature > 0)) throw new IllegalArgumentException("temperature must be positive");
      if (!(staleness >= 0 && staleness <= 1)) throw new IllegalArgumentException("staleness weight must be in [0, 1]");
      if (bufferSize < 1 || minBuffer < 1 || minBuffer > bufferSize) {
        throw new IllegalArgumentException("need 1 <= minBuffer <= bufferSize");
      }
    }
  }

  private static final int MAGIC = 0x504C5231; // "PLR1"

  private final Settings cfg;
  private final int size, numEnvs;
  private final long newSeed;
  private final Rng rng;

  // The buffer: slot -> store index, score, reset count at the last sampling.
  private final int[] level;
  private final float[] score;
  private final long[] lastSampled;
  private int count;
  private final Map<Integer, Integer> slotOf = new HashMap<>();
  /** Resets so far (the staleness clock). */
  private long clock;

  // Per environment: the level of its current episode, whether it was replayed, and that episode's number.
  private final int[] current;
  private final boolean[] currentReplayed;
  private final long[] currentEpisode;

  // Counters (checkpointed): resets, replays, finished episodes and solves by kind.
  private long resets, replays, replayEpisodes, replaySolves, newEpisodes, newSolves;

  // Cache of P_S: slots in rank order and the cumulative rank weights (rebuilt after score changes).
  private final int[] order;
  private final double[] cdf;
  private boolean dirty = true;

  /**
   * @param newSeed seed of the uniform draws of new levels (as {@link LevelSampler#uniform(LevelStore, long)}'s)
   * @param rngSeed seed of the sampler's own stream (replay decisions and draws)
   */
  public PrioritizedLevelReplay(LevelStore store, int numEnvs, Settings cfg, long newSeed, long rngSeed) {
    super(store);
    if (numEnvs < 1) throw new IllegalArgumentException("need at least one environment");
    this.cfg = cfg;
    this.size = store.size();
    this.numEnvs = numEnvs;
    this.newSeed = newSeed;
    this.rng = new Rng(rngSeed);
    int b = cfg.bufferSize();
    level = new int[b];
    score = new float[b];
    lastSampled = new long[b];
    order = new int[b];
    cdf = new double[b];
    current = new int[numEnvs];
    currentReplayed = new boolean[numEnvs];
    currentEpisode = new long[numEnvs];
    Arrays.fill(currentEpisode, -1);
  }

  public Settings settings() { return cfg; }

  /**
   * The level of (env, episode). The first call for an episode decides it (and advances the
   * sampler's stream and clock); further calls for the same episode return the same level.
   */
  @Override
  public int storeIndex(int env, long episode) {
    if (currentEpisode[env] == episode) return current[env];
    boolean replay = count >= cfg.minBuffer() && cfg.replayProb() > 0 && rng.nextDouble() < cfg.replayProb();
    int k;
    if (replay) {
      int slot = drawSlot(rng.nextDouble(), rng.nextDouble());
      k = level[slot];
      lastSampled[slot] = clock + 1;
      replays++;
    } else {
      k = (int) Long.remainderUnsigned(Rng.mix(newSeed, env, episode), size);
    }
    clock++;
    resets++;
    current[env] = k;
    currentReplayed[env] = replay;
    currentEpisode[env] = episode;
    return k;
  }

  /** The store index of environment {@code env}'s current episode. */
  public int current(int env) { return current[env]; }

  /** Whether environment {@code env}'s current episode replays a buffered level. */
  public boolean currentReplayed(int env) { return currentReplayed[env]; }

  /**
   * A slot drawn from the mixture: with {@code u < rho} from the staleness distribution (by
   * {@code v}), else from the rank distribution (by {@code v}).
   */
  int drawSlot(double u, double v) {
    if (u < cfg.staleness()) {
      double total = 0;
      for (int j = 0; j < count; j++) total += clock - lastSampled[j];
      if (total <= 0) return Math.min(count - 1, (int) (v * count)); // all equally stale: uniform
      double target = v * total, acc = 0;
      for (int j = 0; j < count - 1; j++) {
        acc += clock - lastSampled[j];
        if (target < acc) return j;
      }
      return count - 1;
    }
    rebuild();
    double target = v * cdf[count - 1];
    int lo = 0, hi = count - 1; // the first rank whose cumulative weight exceeds target
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return order[lo];
  }

  /** Rank order (score descending, then store index ascending) and cumulative weights (1/rank)^(1/beta). */
  private void rebuild() {
    if (!dirty) return;
    Integer[] slots = new Integer[count];
    for (int j = 0; j < count; j++) slots[j] = j;
    Arrays.sort(slots, (a, b) -> score[a] != score[b] ? Float.compare(score[b], score[a]) : Integer.compare(level[a], level[b]));
    double inv = 1.0 / cfg.temperature(), acc = 0;
    for (int r = 0; r < count; r++) {
      order[r] = slots[r];
      acc += Math.pow(r + 1, -inv);
      cdf[r] = acc;
    }
    dirty = false;
  }

  /**
   * The replay distribution P over the buffer's slots (the mixture above), for tests and logs; an
   * empty array when the buffer is empty.
   */
  public double[] probabilities() {
    double[] p = new double[count];
    if (count == 0) return p;
    rebuild();
    double rho = cfg.staleness(), total = 0;
    for (int j = 0; j < count; j++) total += clock - lastSampled[j];
    for (int r = 0; r < count; r++) {
      double w = cdf[r] - (r == 0 ? 0 : cdf[r - 1]);
      p[order[r]] += (1 - rho) * w / cdf[count - 1];
    }
    for (int j = 0; j < count; j++) p[j] += rho * (total > 0 ? (clock - lastSampled[j]) / total : 1.0 / count);
    return p;
  }

  /**
   * A finished episode on store level {@code k} with score {@code s}: replaces the level's score if
   * buffered, else inserts it (evicting the lowest score when full, if {@code s} is higher).
   */
  public void update(int k, float s, boolean solved, boolean replayed) {
    if (replayed) {
      replayEpisodes++;
      if (solved) replaySolves++;
    } else {
      newEpisodes++;
      if (solved) newSolves++;
    }
    Integer slot = slotOf.get(k);
    if (slot != null) {
      score[slot] = s;
    } else if (count < cfg.bufferSize()) {
      level[count] = k;
      score[count] = s;
      lastSampled[count] = clock;
      slotOf.put(k, count);
      count++;
    } else {
      int min = 0;
      for (int j = 1; j < count; j++) if (score[j] < score[min]) min = j;
      if (!(s > score[min])) return;
      slotOf.remove(level[min]);
      level[min] = k;
      score[min] = s;
      lastSampled[min] = clock;
      slotOf.put(k, min);
    }
    dirty = true;
  }

  /** Levels in the buffer. */
  public int bufferCount() { return count; }

  /** Store index and score of buffer slot {@code j} (0 <= j < bufferCount()). */
  public int bufferLevel(int j) { return level[j]; }
  public float bufferScore(int j) { return score[j]; }

  /** Resets decided so far (the staleness clock). */
  public long clock() { return clock; }

  /** Mean and maximum score in the buffer (NaN when empty). */
  public double meanScore() {
    if (count == 0) return Double.NaN;
    double s = 0;
    for (int j = 0; j < count; j++) s += score[j];
    return s / count;
  }

  public double maxScore() {
    if (count == 0) return Double.NaN;
    float m = score[0];
    for (int j = 1; j < count; j++) m = Math.max(m, score[j]);
    return m;
  }

  /** Cumulative counters: resets, replays, episodes and solves on replayed and on new levels. */
  public record Counters(long resets, long replays, long replayEpisodes, long replaySolves, long newEpisodes, long newSolves) {}

  public Counters counters() {
    return new Counters(resets, replays, replayEpisodes, replaySolves, newEpisodes, newSolves);
  }

  // ---------------------------------------------------------------- checkpoint state

  /** Everything that determines the sampler's future. */
  public void save(DataOutputStream out) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(cfg.bufferSize());
    out.writeInt(numEnvs);
    out.writeLong(rng.state());
    out.writeLong(clock);
    out.writeInt(count);
    for (int j = 0; j < count; j++) {
      out.writeInt(level[j]);
      out.writeFloat(score[j]);
      out.writeLong(lastSampled[j]);
    }
    for (int i = 0; i < numEnvs; i++) {
      out.writeInt(current[i]);
      out.writeBoolean(currentReplayed[i]);
      out.writeLong(currentEpisode[i]);
    }
    for (long v : new long[] {resets, replays, replayEpisodes, replaySolves, newEpisodes, newSolves}) out.writeLong(v);
  }

  /** Restores what {@link #save} wrote (for the same settings and number of environments). */
  public void load(DataInputStream in) throws IOException {
    if (in.readInt() != MAGIC) throw new IOException("no level-replay state where it was expected");
    int b = in.readInt(), n = in.readInt();
    if (b != cfg.bufferSize() || n != numEnvs) {
      throw new IOException("level-replay state for buffer " + b + " and " + n + " envs, expected " + cfg.bufferSize()
          + " and " + numEnvs);
    }
    rng.setState(in.readLong());
    clock = in.readLong();
    count = in.readInt();
    if (count < 0 || count > b) throw new IOException("level-replay buffer holds " + count + " levels, more than " + b);
    slotOf.clear();
    for (int j = 0; j < count; j++) {
      level[j] = in.readInt();
      score[j] = in.readFloat();
      lastSampled[j] = in.readLong();
      if (level[j] < 0 || level[j] >= size) throw new IOException("level-replay buffer names level " + level[j] + " of " + size);
      slotOf.put(level[j], j);
    }
    for (int i = 0; i < numEnvs; i++) {
      current[i] = in.readInt();
      currentReplayed[i] = in.readBoolean();
      currentEpisode[i] = in.readLong();
    }
    resets = in.readLong();
    replays = in.readLong();
    replayEpisodes = in.readLong();
    replaySolves = in.readLong();
    newEpisodes = in.readLong();
    newSolves = in.readLong();
    dirty = true;
  }
}
