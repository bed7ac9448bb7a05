package dev.speedrun.llm;

import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Level;
import java.util.Arrays;
import java.util.HashMap;

/**
 * Exact breadth-first search over (player, boxes) states for tiny boards (at most 64 cells and
 * {@value #MAX_BOXES} boxes): returns a solution with the fewest moves, or null when there is none
 * within the state budget. Directions are tried in the order U, D, L, R, so the answer is
 * deterministic. A state is one long: the player cell and the sorted box cells, 6 bits each.
 */
public final class TinySolver {
  public static final int MAX_BOXES = 9;
  private static final Direction[] DIRS = {Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT};

  private TinySolver() {}

  /** The result of a search: the optimal moves (null if unsolvable) and the states visited. */
  public record Solution(String moves, int states) {}

  /** Solves with a budget of {@code maxStates} visited states. */
  public static Solution solve(Level level, int maxStates) {
    int w = level.width(), h = level.height(), size = w * h;
    if (size > 64) throw new IllegalArgumentException("board has " + size + " cells; TinySolver takes at most 64");
    int nb = level.boxCount();
    if (nb > MAX_BOXES) throw new IllegalArgumentException(nb + " boxes; TinySolver takes at most " + MAX_BOXES);
    boolean[] wall = new boolean[size], goal = new boolean[size];
    int[] boxes = new int[nb];
    for (int i = 0, b = 0; i < size; i++) {
      wall[i] = level.isWall(i);
      goal[i] = level.isGoal(i);
      if (level.hasBox(i)) boxes[b++] = i;
    }
    long start = encode(level.player(), boxes);
    if (solved(boxes, goal)) return new Solution("", 1);

    HashMap<Long, Integer> seen = new HashMap<>();
    long[] states = new long[1024];
    int[] parent = new int[1024];
    byte[] move = new byte[1024];
    int count = 0, head = 0;
    states[count] = start;
    parent[count] = -1;
    seen.put(start, count++);
    int[] cur = new int[nb];
    while (head < count) {
      int id = head++;
      long s = states[id];
      int player = decode(s, cur);
      int pr = player / w, pc = player % w;
      for (int d = 0; d < 4; d++) {
        Direction dir = DIRS[d];
        int r = pr + dir.dRow, c = pc + dir.dCol;
        if (r < 0 || c < 0 || r >= h || c >= w) continue;
        int next = r * w + c;
        if (wall[next]) continue;
        int bi = indexOf(cur, next);
        int[] nbx = cur;
        if (bi >= 0) {
          int r2 = r + dir.dRow, c2 = c + dir.dCol;
          if (r2 < 0 || c2 < 0 || r2 >= h || c2 >= w) continue;
          int beyond = r2 * w + c2;
          if (wall[beyond] || indexOf(cur, beyond) >= 0) continue;
          nbx = cur.clone();
          nbx[bi] = beyond;
          Arrays.sort(nbx);
        }
        long ns = encode(next, nbx);
        if (seen.containsKey(ns)) continue;
        if (count == states.length) {
          states = Arrays.copyOf(states, count * 2);
          parent = Arrays.copyOf(parent, count * 2);
          move = Arrays.copyOf(move, count * 2);
        }
        states[count] = ns;
        parent[count] = id;
        move[count] = (byte) d;
        seen.put(ns, count);
        count++;
        if (bi >= 0 && solved(nbx, goal)) return new Solution(path(parent, move, count - 1), count);
        if (count >= maxStates) return new Solution(null, count);
      }
    }
    return new Solution(null, count);
  }

  private static String path(int[] parent, byte[] move, int id) {
    StringBuilder sb = new StringBuilder();
    for (int i = id; parent[i] >= 0; i = parent[i]) sb.append(DIRS[move[i]].letter());
    return sb.reverse().toString();
  }

  private static boolean solved(int[] boxes, boolean[] goal) {
    for (int b : boxes) if (!goal[b]) return false;
    return true;
  }

  private static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) if (a[i] == v) return i;
    return -1;
  }

  private static long encode(int player, int[] sortedBoxes) {
    long s = player;
    for (int b : sortedBoxes) s = (s << 6) | b;
    return s;
  }

  private static int decode(long s, int[] boxesOut) {
    for (int i = boxesOut.length - 1; i >= 0; i--) {
      boxesOut[i] = (int) (s & 63);
      s >>>= 6;
    }
    return (int) s;
  }
}
