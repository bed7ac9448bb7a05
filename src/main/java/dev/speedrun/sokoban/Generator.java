package dev.speedrun.sokoban;

import java.util.List;

/**
 * Boxoban-style level generator: the procedure of the I2A paper (Weber et al. 2017) as implemented
 * in gym-sokoban's {@code room_utils} and used for DeepMind's Boxoban levels.
 *
 * <ol>
 *   <li>Room topology: a random walk of {@code steps} steps over the interior, each step stamping a
 *       random 3x3 mask of floor (a straight piece or an L-shaped corner); the walk turns with
 *       probability {@code pTurn}; the border stays wall.
 *   <li>The player and the targets are placed on random floor cells, a box on each target.
 *   <li>Reverse play: a depth-first search over eight reverse actions (move and pull the box behind
 *       if any; or only move) in gym-sokoban's order, to depth 300 and up to 300,000 distinct states,
 *       keeps the state with the best score {@code pulls x sum of box-target Manhattan distances}
 *       among states where every target is empty (no box, no player). A room without such a state
 *       is thrown away and a new one is drawn (gym-sokoban's reset retries likewise).
 * </ol>
 *
 * Every generated level is solvable by construction (reverse play from the solved position).
 * Deterministic: {@link #generate(long, long)} depends only on the settings, the seed and the index.
 */
public final class Generator {
  /** Settings: room size (including the wall border), box count, walk steps, turn probability. */
  public record Settings(int width, int height, int boxes, int steps, double pTurn, int maxDepth, int maxStates) {
    /** Boxoban's: 10x10, 4 boxes, 1.7 x (width + height) walk steps, turning with probability 0.35. */
    public static final Settings BOXOBAN = of(10, 10, 4);

    /** Defaults for a room size and box count (gym-sokoban's: steps = 1.7 x (w + h)). */
    public static Settings of(int width, int height, int boxes) {
      return new Settings(width, height, boxes, (int) (1.7 * (width + height)), 0.35, 300, 300_000);
    }

    public Settings {
      if (width < 3 || height < 3 || width > Level.MAX_SIDE || height > Level.MAX_SIDE) {
        throw new IllegalArgumentException("room size " + width + "x" + height + " is outside 3.." + Level.MAX_SIDE);
      }
      if (boxes < 1) throw new IllegalArgumentException("need at least one box");
      if (maxStates < 1 || maxStates > 500_000) throw new IllegalArgumentException("maxStates " + maxStates + " is outside 1..500000");
      if ((width - 2) * (height - 2) < boxes + 2) {
        throw new IllegalArgumentException(boxes + " boxes do not fit in a " + width + "x" + height + " room");
      }
    }
  }

  private static final int[][] MASKS = {
    {0, 0, 0, 1, 1, 1, 0, 0, 0},
    {0, 1, 0, 0, 1, 0, 0, 1, 0},
    {0, 0, 0, 1, 1, 0, 0, 1, 0},
    {0, 0, 0, 1, 1, 0, 1, 1, 0},
    {0, 0, 0, 0, 1, 1, 0, 1, 0},
  };
  private static final int[] DR = {1, 0, -1, 0}, DC = {0, 1, 0, -1};

  private final Settings s;
  private final int w, h, size;

  // Search state (one generator per thread).
  private boolean[] floor, target;
  private final int[] boxAt; // box index at a cell, or -1
  private int[] boxPos, boxHome; // current cell and target cell of each box
  private int player;
  // Explored states: an open-addressing set of 64-bit Zobrist hashes, cleared by a generation stamp.
  private static final int TABLE = 1 << 20; // > 3x the 300,000-state cap
  private final long[] keys = new long[TABLE];
  private final int[] stamp = new int[TABLE];
  private int stampGen, exploredCount;
  private final long[] zBox, zPlayer;
  private long bestScore;
  private int[] bestBoxes;
  private int bestPlayer;

  public Generator(Settings settings) {
    this.s = settings;
    this.w = settings.width();
    this.h = settings.height();
    this.size = w * h;
    boxAt = new int[size];
    zBox = new long[size];
    zPlayer = new long[size];
    dev.speedrun.env.Rng z = new dev.speedrun.env.Rng(0x5eed);
    for (int c = 0; c < size; c++) {
      zBox[c] = z.nextLong();
      zPlayer[c] = z.nextLong();
    }
  }

  /** Level number {@code index} of the stream for {@code seed}. */
  public Level generate(long seed, long index) {
    dev.speedrun.env.Rng rng = new dev.speedrun.env.Rng(dev.speedrun.env.Rng.mix(seed, index, 0x6e6e));
    for (int attempt = 0; ; attempt++) {
      Level l = attempt(rng);
      if (l != null) return l;
      if (attempt > 10_000) throw new IllegalStateException("no level after 10000 rooms with " + s);
    }
  }

  /** Levels {@code first .. first+count-1} of the stream for {@code seed}. */
  public List<Level> generate(long seed, long first, int count) {
    java.util.ArrayList<Level> out = new java.util.ArrayList<>(count);
    for (int k = 0; k < count; k++) out.add(generate(seed, first + k));
    return out;
  }

  private Level attempt(dev.speedrun.env.Rng rng) {
    floor = topology(rng);
    int nFloor = 0;
    for (boolean f : floor) if (f) nFloor++;
    if (nFloor <= s.boxes() + 1) return null; // gym-sokoban: "not enough free spots" (and it retries)
    // Player, then targets with a box on each, on random distinct floor cells.
    target = new boolean[size];
    boolean[] used = new boolean[size];
    player = randomFree(rng, used);
    used[player] = true;
    boxPos = new int[s.boxes()];
    boxHome = new int[s.boxes()];
    java.util.Arrays.fill(boxAt, -1);
    for (int b = 0; b < s.boxes(); b++) {
      int c = randomFree(rng, used);
      used[c] = true;
      target[c] = true;
      boxPos[b] = c;
      boxHome[b] = c;
      boxAt[c] = b;
    }
    stampGen++;
    exploredCount = 0;
    bestScore = -1;
    bestBoxes = null;
    dfs(0, -1, s.maxDepth());
    if (bestScore <= 0) return null;
    byte[] cells = new byte[size];
    for (int c = 0; c < size; c++) cells[c] = floor[c] ? (target[c] ? Level.GOAL : 0) : Level.WALL;
    for (int b : bestBoxes) cells[b] |= Level.BOX;
    cells[bestPlayer] |= Level.PLAYER;
    return new Level(w, h, cells);
  }

  private int randomFree(dev.speedrun.env.Rng rng, boolean[] used) {
    int n = 0;
    for (int c = 0; c < size; c++) if (floor[c] && !used[c]) n++;
    int k = rng.nextInt(n);
    for (int c = 0; c < size; c++) if (floor[c] && !used[c] && k-- == 0) return c;
    throw new AssertionError();
  }

  /** gym-sokoban's room_topology_generation. */
  private boolean[] topology(dev.speedrun.env.Rng rng) {
    int[] grid = new int[size];
    int dir = rng.nextInt(4);
    int r = 1 + rng.nextInt(h - 1), c = 1 + rng.nextInt(w - 1);
    for (int step = 0; step < s.steps(); step++) {
      if (rng.nextDouble() < s.pTurn()) dir = rng.nextInt(4);
      r = Math.max(Math.min(r + DR[dir], h - 2), 1);
      c = Math.max(Math.min(c + DC[dir], w - 2), 1);
      int[] mask = MASKS[rng.nextInt(MASKS.length)];
      for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) grid[(r - 1 + i) * w + (c - 1 + j)] += mask[i * 3 + j];
    }
    boolean[] f = new boolean[size];
    for (int i = 0; i < size; i++) {
      int rr = i / w, cc = i % w;
      f[i] = grid[i] > 0 && rr > 0 && cc > 0 && rr < h - 1 && cc < w - 1;
    }
    return f;
  }

  private boolean addExplored(long k) {
    int i = (int) (k ^ (k >>> 32)) & (TABLE - 1);
    while (stamp[i] == stampGen) {
      if (keys[i] == k) return false;
      i = (i + 1) & (TABLE - 1);
    }
    stamp[i] = stampGen;
    keys[i] = k;
    exploredCount++;
    return true;
  }

  private long hash() {
    long x = zPlayer[player];
    for (int b : boxPos) x ^= zBox[b];
    return x;
  }

  /** gym-sokoban's depth_first_search over reverse moves (the player may pull the box behind it). */
  private void dfs(int swaps, int lastPull, int ttl) {
    ttl--;
    if (ttl <= 0 || exploredCount >= s.maxStates()) return;
    if (!addExplored(hash())) return;
    // Scored only when every target is empty: no box on it, and not the player either
    // (gym-sokoban counts the cells still marked "empty target").
    boolean targetsEmpty = !target[player];
    long displacement = 0;
    for (int b = 0; b < boxPos.length; b++) {
      if (target[boxPos[b]]) targetsEmpty = false;
      int p = boxPos[b], q = boxHome[b];
      displacement += Math.abs(p / w - q / w) + Math.abs(p % w - q % w);
    }
    long score = targetsEmpty ? swaps * displacement : 0;
    if (score > bestScore) {
      bestScore = score;
      bestBoxes = boxPos.clone();
      bestPlayer = player;
    }
    // gym-sokoban's eight reverse actions in its order: pull up, down, left, right (move, and pull
    // the box behind if there is one), then move up, down, left, right (no pull).
    for (int action = 0; action < 8; action++) {
      int d = action & 3;
      boolean pull = action < 4;
      int dr = d == 0 ? -1 : d == 1 ? 1 : 0, dc = d == 2 ? -1 : d == 3 ? 1 : 0;
      int pr = player / w, pc = player % w;
      int nr = pr + dr, nc = pc + dc;
      if (nr < 0 || nc < 0 || nr >= h || nc >= w) continue;
      int next = nr * w + nc;
      if (!floor[next] || boxAt[next] >= 0) continue;
      int behind = (pr - dr) * w + (pc - dc);
      boolean inBounds = pr - dr >= 0 && pc - dc >= 0 && pr - dr < h && pc - dc < w;
      int pulled = pull && inBounds ? boxAt[behind] : -1;
      int from = player;
      player = next;
      int newLast = lastPull;
      if (pulled >= 0) {
        boxAt[behind] = -1;
        boxAt[from] = pulled;
        boxPos[pulled] = from;
        newLast = pulled;
      }
      dfs(newLast != lastPull ? swaps + 1 : swaps, lastPull, ttl);
      // gym-sokoban passes the old last_pull down (not the new one); kept for fidelity.
      if (pulled >= 0) {
        boxAt[from] = -1;
        boxAt[behind] = pulled;
        boxPos[pulled] = behind;
      }
      player = from;
    }
  }
}
