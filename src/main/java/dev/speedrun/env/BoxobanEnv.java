package dev.speedrun.env;

import dev.speedrun.sokoban.Level;

/**
 * N Boxoban environments stepped together, exactly as the speedrun's environment behaves
 * (PufferLib's Boxoban; see DESIGN.md "Fixed facts"):
 *
 * <ul>
 *   <li>10x10 board; smaller levels sit at the top-left, padded with walls.
 *   <li>Actions: 0 noop, 1 down, 2 up, 3 left, 4 right. A push moves one box into floor or goal.
 *   <li>Reward: +{@code targetReward} (0.25) the first time each target receives a box within an
 *       episode (a box already on a target at reset earns nothing); +{@code solveReward} (1) and
 *       done when every box is on a target; {@code timeoutReward} (-1) and done when the episode
 *       reaches {@code maxSteps} (120) without a solve. Solve is checked before timeout; rewards of
 *       one step add up (the solving push earns 1.25; the trainer clamps to [-1, 1]).
 *   <li>Observation: uint8 [env][plane][row][col], planes agent, walls, boxes, targets (400 bytes).
 *   <li>Auto-reset: when an episode ends, the environment loads its next level at once; the
 *       observation then shows the new episode, while {@link #rewards} and {@link #dones} describe
 *       the step that ended the old one, and {@link #lastSolved} etc. describe the old episode.
 * </ul>
 *
 * <p>All arrays are allocated once; {@link #step} allocates nothing.
 */
public final class BoxobanEnv {
  public static final int SIDE = 10, CELLS = SIDE * SIDE, PLANES = 4, OBS = PLANES * CELLS;
  public static final int PLANE_AGENT = 0, PLANE_WALL = 1, PLANE_BOX = 2, PLANE_TARGET = 3;
  public static final int NUM_ACTIONS = 5;

  /** Reward settings; {@link #DEFAULT} is the benchmark's. */
  public record Rewards(float target, float solve, float timeout, int maxSteps) {
    public static final Rewards DEFAULT = new Rewards(0.25f, 1f, -1f, 120);
  }

  /**
   * NEXT[action * CELLS + cell]: the neighbouring cell in that direction; the cell itself for noop
   * and for a move off the board (so such a move walks in place, and a push off the board finds
   * the box itself in the way: no special cases in {@link #stepOne}).
   */
  private static final int[] NEXT = new int[NUM_ACTIONS * CELLS];

  static {
    int[] dr = {0, 1, -1, 0, 0}, dc = {0, 0, 0, -1, 1}; // noop, down, up, left, right
    for (int a = 0; a < NUM_ACTIONS; a++) {
      for (int cell = 0; cell < CELLS; cell++) {
        int r = cell / SIDE + dr[a], c = cell % SIDE + dc[a];
        NEXT[a * CELLS + cell] = r < 0 || c < 0 || r >= SIDE || c >= SIDE ? cell : r * SIDE + c;
      }
    }
  }

  private static final byte WALL = Level.WALL, GOAL = Level.GOAL, BOX = Level.BOX, PLAYER = Level.PLAYER;

  public final int n;
  private final LevelSampler sampler;
  private final Rewards rw;
  private final float targetReward, solveReward, timeoutReward;
  private final int maxSteps;

  /** Observations, [env][plane][row][col]; kept current in place. */
  public final byte[] obs;
  /** Reward and done of the last {@link #step}, per environment. */
  public final float[] rewards;
  public final boolean[] dones;
  /** Statistics of the episode that ended at the last step, valid where {@code dones[i]}. */
  public final boolean[] lastSolved;
  public final int[] lastLength;
  public final float[] lastReturn;
  public final int[] lastTargetsReached;

  // Per-environment state.
  private final byte[] board; // [env][cell]: WALL | GOAL | BOX flags (the player is in agent[])
  private final int[] agent, steps, boxesLeft, targetsReached;
  private final long[] rewardedLo, rewardedHi; // targets that already earned their bonus
  private final float[] episodeReturn;
  private final long[] episode; // episode number per env, for the sampler

  public BoxobanEnv(int n, LevelSampler sampler) {
    this(n, sampler, Rewards.DEFAULT);
  }

  public BoxobanEnv(int n, LevelSampler sampler, Rewards rewards) {
    if (n < 1) throw new IllegalArgumentException("need at least one environment");
    this.n = n;
    this.sampler = sampler;
    this.rw = rewards;
    this.targetReward = rewards.target();
    this.solveReward = rewards.solve();
    this.timeoutReward = rewards.timeout();
    this.maxSteps = rewards.maxSteps();
    obs = new byte[n * OBS];
    this.rewards = new float[n];
    dones = new boolean[n];
    lastSolved = new boolean[n];
    lastLength = new int[n];
    lastReturn = new float[n];
    lastTargetsReached = new int[n];
    board = new byte[n * CELLS];
    agent = new int[n];
    steps = new int[n];
    boxesLeft = new int[n];
    targetsReached = new int[n];
    rewardedLo = new long[n];
    rewardedHi = new long[n];
    episodeReturn = new float[n];
    episode = new long[n];
  }

  public Rewards rewardSettings() { return rw; }

  /** Loads episode 0 of every environment. */
  public void reset() {
    for (int i = 0; i < n; i++) {
      episode[i] = 0;
      sampler.board10(i, 0, board, i * CELLS);
      started(i);
    }
  }

  /** Loads {@code level} into environment {@code i} (padding it to 10x10 with walls). */
  public void load(int i, Level level) {
    if (level.width() > SIDE || level.height() > SIDE) {
      throw new IllegalArgumentException("level is " + level.width() + "x" + level.height() + ", larger than 10x10");
    }
    LevelSampler.pad10(level, board, i * CELLS);
    started(i);
  }

  /** Starts an episode on the board just written to {@code board[i]} (player flag still set). */
  private void started(int i) {
    int base = i * CELLS, left = 0, p = -1;
    long lo = 0, hi = 0;
    for (int c = 0; c < CELLS; c++) {
      byte f = board[base + c];
      if ((f & PLAYER) != 0) {
        p = c;
        board[base + c] = (byte) (f & ~PLAYER);
      }
      if ((f & (BOX | GOAL)) == BOX) left++;
      // A box already on a target at reset earns nothing: mark those targets as rewarded.
      if ((f & (BOX | GOAL)) == (BOX | GOAL)) {
        if (c < 64) lo |= 1L << c;
        else hi |= 1L << (c - 64);
      }
    }
    if (p < 0) throw new IllegalStateException("level without a player");
    agent[i] = p;
    steps[i] = 0;
    boxesLeft[i] = left;
    targetsReached[i] = 0;
    episodeReturn[i] = 0;
    rewardedLo[i] = lo;
    rewardedHi[i] = hi;
    writeObs(i);
  }

  private void writeObs(int i) {
    int o = i * OBS, base = i * CELLS;
    // One simple loop per plane (the JIT vectorizes these).
    java.util.Arrays.fill(obs, o, o + CELLS, (byte) 0);
    for (int c = 0; c < CELLS; c++) obs[o + PLANE_WALL * CELLS + c] = (byte) (board[base + c] & WALL);
    for (int c = 0; c < CELLS; c++) obs[o + PLANE_BOX * CELLS + c] = (byte) ((board[base + c] >> 2) & 1);
    for (int c = 0; c < CELLS; c++) obs[o + PLANE_TARGET * CELLS + c] = (byte) ((board[base + c] >> 1) & 1);
    obs[o + agent[i]] = 1;
  }

  /** Steps every environment with {@code actions[i]} in 0..4; auto-resets finished ones. */
  public void step(int[] actions) {
    for (int i = 0; i < n; i++) stepOne(i, actions[i]);
  }

  /** Steps environments {@code from} (inclusive) to {@code to} (exclusive), for splitting work. */
  public void step(int[] actions, int from, int to) {
    for (int i = from; i < to; i++) stepOne(i, actions[i]);
  }

  private void stepOne(int i, int action) {
    if (action < 0 || action >= NUM_ACTIONS) throw new IllegalArgumentException("action " + action + " is not in 0..4");
    float reward = 0f;
    int base = i * CELLS, a = agent[i], row = action * CELLS;
    int next = NEXT[row + a];
    byte f = board[base + next];
    // Walk (noop and off-board moves walk in place); a wall or a box keeps the agent where it is.
    int to = (f & (WALL | BOX)) == 0 ? next : a;
    if ((f & BOX) != 0) {
      int beyond = NEXT[row + next];
      byte g = board[base + beyond];
      if ((g & (WALL | BOX)) == 0) { // (beyond == next, off the board, holds the box itself)
        int ob = i * OBS + PLANE_BOX * CELLS;
        board[base + next] = (byte) (f & ~BOX);
        board[base + beyond] = (byte) (g | BOX);
        obs[ob + next] = 0;
        obs[ob + beyond] = 1;
        if ((f & GOAL) != 0) boxesLeft[i]++;
        if ((g & GOAL) != 0) {
          boxesLeft[i]--;
          if (firstTime(i, beyond)) {
            reward += targetReward;
            targetsReached[i]++;
          }
        }
        to = next;
      }
    }
    int o = i * OBS;
    obs[o + a] = 0;
    obs[o + to] = 1;
    agent[i] = to;
    int t = ++steps[i];
    boolean done = false, solved = false;
    if (boxesLeft[i] == 0) {
      reward += solveReward;
      done = solved = true;
    } else if (t >= maxSteps) {
      reward += timeoutReward;
      done = true;
    }
    episodeReturn[i] += reward;
    rewards[i] = reward;
    dones[i] = done;
    if (done) endEpisode(i, t, solved);
  }

  private void endEpisode(int i, int t, boolean solved) {
    lastSolved[i] = solved;
    lastLength[i] = t;
    lastReturn[i] = episodeReturn[i];
    lastTargetsReached[i] = targetsReached[i];
    sampler.board10(i, ++episode[i], board, i * CELLS);
    started(i);
  }

  private boolean firstTime(int i, int cell) {
    if (cell < 64) {
      long bit = 1L << cell;
      if ((rewardedLo[i] & bit) != 0) return false;
      rewardedLo[i] |= bit;
    } else {
      long bit = 1L << (cell - 64);
      if ((rewardedHi[i] & bit) != 0) return false;
      rewardedHi[i] |= bit;
    }
    return true;
  }

  /**
   * The active (non-zero) entries of environment {@code i}'s observation as indices into its 400
   * values ({@code plane * 100 + cell}), ascending, written to {@code dst[off..]}; returns how many.
   * At most 400; for policies that gather embeddings instead of multiplying the one-hot vector.
   */
  public int activeIndices(int i, int[] dst, int off) {
    int o = i * OBS, k = off;
    for (int j = 0; j < OBS; j++) if (obs[o + j] != 0) dst[k++] = j;
    return k - off;
  }

  /** Current step count of environment {@code i}'s episode. */
  public int steps(int i) { return steps[i]; }
  /** Episode number of environment {@code i} (how many episodes it has finished). */
  public long episode(int i) { return episode[i]; }
  public int agent(int i) { return agent[i]; }

  /** The current position of environment {@code i} as a 10x10 level. */
  public Level board(int i) {
    byte[] cells = new byte[CELLS];
    System.arraycopy(board, i * CELLS, cells, 0, CELLS);
    cells[agent[i]] |= PLAYER;
    return new Level(SIDE, SIDE, cells);
  }

  /**
   * The full state of every environment (for checkpoints): boards, counters, masks, episodes.
   * Layout: three [env][cell] byte planes (wall, target, box, each 0/1), then per environment
   * agent, steps, boxesLeft, targetsReached as ints, rewardedLo, rewardedHi, episode as longs,
   * episodeReturn as a float. {@link #stateBytes} bytes.
   */
  public void saveState(java.nio.ByteBuffer out) {
    for (int bit : new int[] {WALL, GOAL, BOX}) {
      for (int c = 0; c < n * CELLS; c++) out.put((byte) ((board[c] & bit) != 0 ? 1 : 0));
    }
    for (int i = 0; i < n; i++) {
      out.putInt(agent[i]).putInt(steps[i]).putInt(boxesLeft[i]).putInt(targetsReached[i]);
      out.putLong(rewardedLo[i]).putLong(rewardedHi[i]).putLong(episode[i]).putFloat(episodeReturn[i]);
    }
  }

  public static int stateBytes(int n) {
    return n * (3 * CELLS + 4 * 4 + 3 * 8 + 4);
  }

  /** Restores what {@link #saveState} wrote (for the same {@code n}); rewrites the observations. */
  public void loadState(java.nio.ByteBuffer in) {
    java.util.Arrays.fill(board, (byte) 0);
    for (int bit : new int[] {WALL, GOAL, BOX}) {
      for (int c = 0; c < n * CELLS; c++) if (in.get() != 0) board[c] |= (byte) bit;
    }
    for (int i = 0; i < n; i++) {
      agent[i] = in.getInt();
      steps[i] = in.getInt();
      boxesLeft[i] = in.getInt();
      targetsReached[i] = in.getInt();
      rewardedLo[i] = in.getLong();
      rewardedHi[i] = in.getLong();
      episode[i] = in.getLong();
      episodeReturn[i] = in.getFloat();
    }
    for (int i = 0; i < n; i++) writeObs(i);
  }
}
