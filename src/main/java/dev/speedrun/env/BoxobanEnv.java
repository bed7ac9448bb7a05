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

  private static final int[] DELTA = {0, SIDE, -SIDE, -1, 1}; // noop, down, up, left, right

  public final int n;
  private final LevelSampler sampler;
  private final Rewards rw;

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
  private final byte[] wall, target, box; // [env][cell]
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
    obs = new byte[n * OBS];
    this.rewards = new float[n];
    dones = new boolean[n];
    lastSolved = new boolean[n];
    lastLength = new int[n];
    lastReturn = new float[n];
    lastTargetsReached = new int[n];
    wall = new byte[n * CELLS];
    target = new byte[n * CELLS];
    box = new byte[n * CELLS];
    agent = new int[n];
    steps = new int[n];
    boxesLeft = new int[n];
    targetsReached = new int[n];
    rewardedLo = new long[n];
    rewardedHi = new long[n];
    episodeReturn = new float[n];
    episode = new long[n];
  }

  /** Loads episode 0 of every environment. */
  public void reset() {
    for (int i = 0; i < n; i++) {
      episode[i] = 0;
      load(i, sampler.level(i, 0));
    }
  }

  /** Loads {@code level} into environment {@code i} (padding it to 10x10 with walls). */
  public void load(int i, Level level) {
    if (level.width() > SIDE || level.height() > SIDE) {
      throw new IllegalArgumentException("level is " + level.width() + "x" + level.height() + ", larger than 10x10");
    }
    int base = i * CELLS;
    java.util.Arrays.fill(wall, base, base + CELLS, (byte) 1);
    java.util.Arrays.fill(target, base, base + CELLS, (byte) 0);
    java.util.Arrays.fill(box, base, base + CELLS, (byte) 0);
    int left = 0;
    for (int r = 0; r < level.height(); r++) {
      for (int c = 0; c < level.width(); c++) {
        byte f = level.cell(r, c);
        int k = base + r * SIDE + c;
        wall[k] = (byte) ((f & Level.WALL) != 0 ? 1 : 0);
        target[k] = (byte) ((f & Level.GOAL) != 0 ? 1 : 0);
        box[k] = (byte) ((f & Level.BOX) != 0 ? 1 : 0);
        if (box[k] == 1 && target[k] == 0) left++;
      }
    }
    int p = level.player();
    agent[i] = (p / level.width()) * SIDE + p % level.width();
    steps[i] = 0;
    boxesLeft[i] = left;
    targetsReached[i] = 0;
    episodeReturn[i] = 0;
    // A box already on a target at reset earns nothing: mark those targets as rewarded.
    long lo = 0, hi = 0;
    for (int c = 0; c < CELLS; c++) {
      if (box[base + c] == 1 && target[base + c] == 1) {
        if (c < 64) lo |= 1L << c;
        else hi |= 1L << (c - 64);
      }
    }
    rewardedLo[i] = lo;
    rewardedHi[i] = hi;
    writeObs(i);
  }

  private void writeObs(int i) {
    int o = i * OBS, base = i * CELLS;
    java.util.Arrays.fill(obs, o, o + CELLS, (byte) 0);
    obs[o + agent[i]] = 1;
    System.arraycopy(wall, base, obs, o + PLANE_WALL * CELLS, CELLS);
    System.arraycopy(box, base, obs, o + PLANE_BOX * CELLS, CELLS);
    System.arraycopy(target, base, obs, o + PLANE_TARGET * CELLS, CELLS);
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
    int base = i * CELLS, o = i * OBS;
    float reward = 0f;
    int a = agent[i];
    if (action != 0) {
      int d = DELTA[action];
      int next = a + d;
      // The board is bordered by walls or padded with them, but a level may touch the edge:
      // guard the row wrap for left/right and the array bounds for up/down.
      if (inside(a, action) && wall[base + next] == 0) {
        if (box[base + next] == 0) {
          moveAgent(i, o, a, next);
        } else if (inside(next, action)) {
          int beyond = next + d;
          if (wall[base + beyond] == 0 && box[base + beyond] == 0) {
            box[base + next] = 0;
            box[base + beyond] = 1;
            obs[o + PLANE_BOX * CELLS + next] = 0;
            obs[o + PLANE_BOX * CELLS + beyond] = 1;
            if (target[base + next] == 1) boxesLeft[i]++;
            if (target[base + beyond] == 1) {
              boxesLeft[i]--;
              if (firstTime(i, beyond)) {
                reward += rw.target();
                targetsReached[i]++;
              }
            }
            moveAgent(i, o, a, next);
          }
        }
      }
    }
    int t = ++steps[i];
    boolean done = false, solved = false;
    if (boxesLeft[i] == 0) {
      reward += rw.solve();
      done = solved = true;
    } else if (t >= rw.maxSteps()) {
      reward += rw.timeout();
      done = true;
    }
    episodeReturn[i] += reward;
    rewards[i] = reward;
    dones[i] = done;
    if (done) {
      lastSolved[i] = solved;
      lastLength[i] = t;
      lastReturn[i] = episodeReturn[i];
      lastTargetsReached[i] = targetsReached[i];
      load(i, sampler.level(i, ++episode[i]));
    }
  }

  private static boolean inside(int cell, int action) {
    int r = cell / SIDE, c = cell % SIDE;
    return switch (action) {
      case 1 -> r < SIDE - 1;
      case 2 -> r > 0;
      case 3 -> c > 0;
      case 4 -> c < SIDE - 1;
      default -> true;
    };
  }

  private void moveAgent(int i, int o, int from, int to) {
    obs[o + from] = 0;
    obs[o + to] = 1;
    agent[i] = to;
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

  /** Current step count of environment {@code i}'s episode. */
  public int steps(int i) { return steps[i]; }
  /** Episode number of environment {@code i} (how many episodes it has finished). */
  public long episode(int i) { return episode[i]; }
  public int agent(int i) { return agent[i]; }

  /** The current position of environment {@code i} as a 10x10 level. */
  public Level board(int i) {
    byte[] cells = new byte[CELLS];
    int base = i * CELLS;
    for (int c = 0; c < CELLS; c++) {
      cells[c] = (byte) ((wall[base + c] == 1 ? Level.WALL : 0) | (target[base + c] == 1 ? Level.GOAL : 0)
          | (box[base + c] == 1 ? Level.BOX : 0) | (c == agent[i] ? Level.PLAYER : 0));
    }
    return new Level(SIDE, SIDE, cells);
  }

  /**
   * The full state of environment {@code i} (for checkpoints): board, counters, masks, episode.
   * Layout: 3*100 bytes (wall, target, box) then agent, steps, boxesLeft, targetsReached as ints,
   * rewardedLo, rewardedHi, episode as longs, episodeReturn as float bits.
   */
  public void saveState(java.nio.ByteBuffer out) {
    out.put(wall).put(target).put(box);
    for (int i = 0; i < n; i++) {
      out.putInt(agent[i]).putInt(steps[i]).putInt(boxesLeft[i]).putInt(targetsReached[i]);
      out.putLong(rewardedLo[i]).putLong(rewardedHi[i]).putLong(episode[i]).putFloat(episodeReturn[i]);
    }
  }

  public static int stateBytes(int n) {
    return n * (3 * CELLS + 4 * 4 + 3 * 8 + 4);
  }

  public void loadState(java.nio.ByteBuffer in) {
    in.get(wall).get(target).get(box);
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
