package dev.speedrun.sokoban;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A Sokoban solver: A* over pushes (Junghanns and Schaeffer's formulation; each search node is a
 * box configuration plus the player's reachable region), with
 *
 * <ul>
 *   <li>dead squares: cells from which no box can reach a goal, found by pulling a box backwards
 *       from every goal; a push onto one is never made;
 *   <li>freeze deadlocks: a pushed box that can no longer move along either axis (blocked by walls,
 *       dead squares, or boxes that are themselves frozen) off a goal ends the branch;
 *   <li>heuristic: minimum-cost matching of boxes to goals under push distances that ignore other
 *       boxes (exact by dynamic programming over goal subsets up to 10 boxes, greedy beyond); it
 *       never overestimates, so with {@code weight} 1 the solution has the fewest pushes;
 *   <li>transposition table keyed by the sorted boxes and the normalized player position (the
 *       smallest cell of the player's region).
 * </ul>
 *
 * The answer is a U/D/L/R move string (walks between pushes by breadth-first search) that replays
 * to solved under {@link Game}.
 */
public final class Solver {
  /** Outcome of a search. */
  public enum Status { SOLVED, UNSOLVABLE, LIMIT }

  /** {@code moves} is null unless solved; {@code pushes} counts the pushes of the solution. */
  public record Result(Status status, String moves, int pushes, long expanded, long millis) {
    public boolean solved() { return status == Status.SOLVED; }
  }

  private static final int[] DR = {-1, 1, 0, 0}, DC = {0, 0, -1, 1};
  private static final char[] LETTER = {'U', 'D', 'L', 'R'};
  private static final int INF = 1 << 20;

  private final Level level;
  private final int w, h, size, nBoxes;
  private final boolean[] wall, goal, dead;
  private final int[] nb; // nb[cell*4+d]: neighbour or -1
  private final int[] goals;
  private final int[][] goalDist; // [goal][cell]: pushes from cell to goal, ignoring other boxes
  private final double weight;

  // Scratch.
  private final boolean[] box;
  private final int[] queue, mark;
  private int markGen;

  public Solver(Level level) {
    this(level, 1.0);
  }

  /** {@code weight} > 1 makes the search greedier (weighted A*: faster, solutions may use more pushes). */
  public Solver(Level level, double weight) {
    this.level = level;
    this.weight = weight;
    w = level.width();
    h = level.height();
    size = w * h;
    wall = new boolean[size];
    goal = new boolean[size];
    box = new boolean[size];
    queue = new int[size];
    mark = new int[size];
    asWall = new boolean[size];
    nb = new int[size * 4];
    List<Integer> gs = new ArrayList<>();
    for (int c = 0; c < size; c++) {
      wall[c] = level.isWall(c);
      goal[c] = level.isGoal(c);
      if (goal[c]) gs.add(c);
      int r = c / w, col = c % w;
      for (int d = 0; d < 4; d++) {
        int r2 = r + DR[d], c2 = col + DC[d];
        nb[c * 4 + d] = r2 < 0 || c2 < 0 || r2 >= h || c2 >= w || level.isWall(r2 * w + c2) ? -1 : r2 * w + c2;
      }
    }
    goals = gs.stream().mapToInt(Integer::intValue).toArray();
    nBoxes = level.boxCount();
    // Push distances by pulling a box back from each goal (the player needs two free cells behind).
    goalDist = new int[goals.length][];
    dead = new boolean[size];
    Arrays.fill(dead, true);
    for (int g = 0; g < goals.length; g++) {
      int[] dist = new int[size];
      Arrays.fill(dist, INF);
      ArrayDeque<Integer> q = new ArrayDeque<>();
      dist[goals[g]] = 0;
      q.add(goals[g]);
      while (!q.isEmpty()) {
        int b = q.poll();
        dead[b] = false;
        for (int d = 0; d < 4; d++) {
          // pull the box from b to p = b+d, the player moving from p to p+d
          int p = nb[b * 4 + d];
          if (p < 0) continue;
          int pp = nb[p * 4 + d];
          if (pp < 0 || dist[p] != INF) continue;
          dist[p] = dist[b] + 1;
          q.add(p);
        }
      }
      goalDist[g] = dist;
    }
  }

  /** Whether a box on {@code cell} can never reach a goal. */
  public boolean isDead(int cell) { return dead[cell]; }

  /** Solves with at most {@code maxExpanded} expansions and {@code millis} milliseconds. */
  public Result solve(long maxExpanded, long millis) {
    long t0 = System.nanoTime();
    long deadline = t0 + millis * 1_000_000L;
    int[] startBoxes = new int[nBoxes];
    int k = 0;
    for (int c = 0; c < size; c++) if (level.hasBox(c)) startBoxes[k++] = c;
    for (int b : startBoxes) {
      if (dead[b] && !goal[b]) return new Result(Status.UNSOLVABLE, null, 0, 0, ms(t0));
    }
    Node start = new Node(startBoxes, level.player(), 0, null, -1, -1);
    start.h = heuristic(startBoxes);
    if (start.h >= INF) return new Result(Status.UNSOLVABLE, null, 0, 0, ms(t0));
    HashMap<String, Node> seen = new HashMap<>();
    PriorityQueue<Node> open = new PriorityQueue<>((a, b) -> a.f != b.f ? Double.compare(a.f, b.f) : Integer.compare(b.g, a.g));
    start.f = weight * start.h;
    seen.put(key(startBoxes, normalize(startBoxes, level.player())), start);
    open.add(start);
    long expanded = 0;
    while (!open.isEmpty()) {
      Node n = open.poll();
      if (n.closed) continue;
      n.closed = true;
      if (n.h == 0) {
        String moves = reconstruct(n);
        return new Result(Status.SOLVED, moves, n.g, expanded, ms(t0));
      }
      if (++expanded > maxExpanded || ((expanded & 255) == 0 && System.nanoTime() > deadline)) {
        return new Result(Status.LIMIT, null, 0, expanded, ms(t0));
      }
      for (int b : n.boxes) box[b] = true;
      int gen = reach(n.player); // marks the player's region
      for (int i = 0; i < n.boxes.length; i++) {
        int b = n.boxes[i];
        for (int d = 0; d < 4; d++) {
          int from = nb[b * 4 + (d ^ 1)]; // the player stands opposite the push direction
          int to = nb[b * 4 + d];
          if (from < 0 || to < 0 || mark[from] != gen || box[to] || dead[to]) continue;
          box[b] = false;
          box[to] = true;
          if (!deadlocked(to)) {
            int[] nbx = n.boxes.clone();
            nbx[i] = to;
            Arrays.sort(nbx);
            int hh = heuristic(nbx);
            if (hh < INF) {
              String key = key(nbx, normalize(nbx, b));
              Node old = seen.get(key);
              int g = n.g + 1;
              if (old == null || (!old.closed && g < old.g)) {
                Node c = new Node(nbx, b, g, n, b, d);
                c.h = hh;
                c.f = g + weight * hh;
                if (old != null) old.closed = true; // superseded
                seen.put(key, c);
                open.add(c);
              }
            }
          }
          box[to] = false;
          box[b] = true;
        }
      }
      for (int b : n.boxes) box[b] = false;
    }
    return new Result(Status.UNSOLVABLE, null, 0, expanded, ms(t0));
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000L;
  }

  /** Node of the search: sorted boxes, the player's cell, pushes so far. */
  private static final class Node {
    final int[] boxes;
    final int player, g;
    final Node parent;
    final int pushedFrom, dir; // the box cell before the push and the push direction
    int h;
    double f;
    boolean closed;

    Node(int[] boxes, int player, int g, Node parent, int pushedFrom, int dir) {
      this.boxes = boxes;
      this.player = player;
      this.g = g;
      this.parent = parent;
      this.pushedFrom = pushedFrom;
      this.dir = dir;
    }
  }

  private static String key(int[] boxes, int player) {
    char[] k = new char[boxes.length + 1];
    k[0] = (char) player;
    for (int i = 0; i < boxes.length; i++) k[i + 1] = (char) boxes[i];
    return new String(k);
  }

  /** Marks cells reachable by the player from {@code p} (boxes in {@link #box} block) with a new generation; returns it. */
  private int reach(int p) {
    int gen = ++markGen;
    int head = 0, tail = 0;
    queue[tail++] = p;
    mark[p] = gen;
    while (head < tail) {
      int c = queue[head++];
      for (int d = 0; d < 4; d++) {
        int x = nb[c * 4 + d];
        if (x >= 0 && mark[x] != gen && !box[x]) {
          mark[x] = gen;
          queue[tail++] = x;
        }
      }
    }
    return gen;
  }

  /**
   * The smallest cell of the player's region from {@code p} with boxes {@code boxes} (the scratch
   * board {@link #box} must hold exactly these boxes). Uses a separate mark array so the expanding
   * node's region stays valid.
   */
  private int normalize(int[] boxes, int p) {
    if (norm == null || norm.length != size) norm = new int[size];
    int gen = ++normGen;
    boolean[] occ = box;
    boolean fresh = false;
    // The start node is normalized before any scratch board exists.
    if (boxes.length > 0 && !occ[boxes[0]]) {
      for (int b : boxes) occ[b] = true;
      fresh = true;
    }
    int head = 0, tail = 0, min = p;
    queue2[tail++] = p;
    norm[p] = gen;
    while (head < tail) {
      int c = queue2[head++];
      if (c < min) min = c;
      for (int d = 0; d < 4; d++) {
        int x = nb[c * 4 + d];
        if (x >= 0 && norm[x] != gen && !occ[x]) {
          norm[x] = gen;
          queue2[tail++] = x;
        }
      }
    }
    if (fresh) for (int b : boxes) occ[b] = false;
    return min;
  }

  private int[] norm;
  private int normGen;
  private final int[] queue2 = new int[Level.MAX_SIDE * Level.MAX_SIDE];

  /**
   * Freeze deadlock test after a push to {@code b} (the scratch board holds the new position): a
   * box off a goal that can move along neither axis, where along an axis a box is blocked by a wall,
   * by dead squares on both sides, or by a neighbouring box that is itself blocked (checked with
   * this box treated as a wall). Checks the pushed box and its neighbouring boxes (which the push
   * may have frozen).
   */
  private boolean deadlocked(int b) {
    if (!goal[b] && frozen(b)) return true;
    for (int d = 0; d < 4; d++) {
      int c = nb[b * 4 + d];
      if (c >= 0 && box[c] && !goal[c] && frozen(c)) return true;
    }
    return false;
  }

  private boolean frozen(int b) {
    return blocked(b, 0) && blocked(b, 2);
  }

  private final boolean[] asWall;

  /** Whether the box at {@code b} cannot move along the axis of direction {@code axis} (0 vertical, 2 horizontal). */
  private boolean blocked(int b, int axis) {
    int x = nb[b * 4 + axis], y = nb[b * 4 + axis + 1];
    if (x < 0 || y < 0 || asWall[x] || asWall[y]) return true;
    if (dead[x] && dead[y]) return true;
    asWall[b] = true;
    int other = axis == 0 ? 2 : 0;
    // A neighbouring box along this axis blocks when it cannot move along the other axis
    // (along this axis it is blocked by this box, now a wall).
    boolean r = (box[x] && blocked(x, other)) || (box[y] && blocked(y, other));
    asWall[b] = false;
    return r;
  }

  /** Minimum-cost assignment of boxes to goals under push distances (INF when impossible). */
  private int heuristic(int[] boxes) {
    int n = boxes.length;
    if (n <= 10) {
      int full = 1 << n;
      if (dp == null || dp.length < full) dp = new int[full];
      Arrays.fill(dp, 0, full, INF);
      dp[0] = 0;
      for (int mask = 0; mask < full; mask++) {
        int cur = dp[mask];
        if (cur >= INF) continue;
        int i = Integer.bitCount(mask); // box i takes the next goal from those unused
        if (i >= n) continue;
        for (int g = 0; g < n; g++) {
          if ((mask & (1 << g)) != 0) continue;
          int dd = goalDist[g][boxes[i]];
          if (dd >= INF) continue;
          int v = cur + dd;
          if (v < dp[mask | (1 << g)]) dp[mask | (1 << g)] = v;
        }
      }
      return dp[full - 1];
    }
    int sum = 0;
    for (int b : boxes) {
      int best = INF;
      for (int[] gd : goalDist) best = Math.min(best, gd[b]);
      if (best >= INF) return INF;
      sum += best;
    }
    return sum;
  }

  private int[] dp;

  /** The move string: walks by breadth-first search between pushes. */
  private String reconstruct(Node end) {
    List<Node> path = new ArrayList<>();
    for (Node n = end; n.parent != null; n = n.parent) path.add(n);
    StringBuilder sb = new StringBuilder();
    Node prev = pathStart(end);
    int player = prev.player;
    for (int i = path.size() - 1; i >= 0; i--) {
      Node n = path.get(i);
      Arrays.fill(box, false);
      for (int b : prev.boxes) box[b] = true;
      int stand = nb[n.pushedFrom * 4 + (n.dir ^ 1)];
      sb.append(walk(player, stand));
      sb.append(LETTER[n.dir]);
      player = n.pushedFrom;
      prev = n;
    }
    Arrays.fill(box, false);
    return sb.toString();
  }

  private static Node pathStart(Node n) {
    while (n.parent != null) n = n.parent;
    return n;
  }

  /** Shortest walk from {@code a} to {@code b} avoiding boxes on the scratch board. */
  private String walk(int a, int b) {
    if (a == b) return "";
    int[] from = new int[size];
    Arrays.fill(from, -1);
    ArrayDeque<Integer> q = new ArrayDeque<>();
    q.add(a);
    from[a] = a;
    while (!q.isEmpty()) {
      int c = q.poll();
      if (c == b) break;
      for (int d = 0; d < 4; d++) {
        int x = nb[c * 4 + d];
        if (x >= 0 && from[x] < 0 && !box[x]) {
          from[x] = c;
          q.add(x);
        }
      }
    }
    if (from[b] < 0) throw new IllegalStateException("no walk from " + a + " to " + b);
    StringBuilder sb = new StringBuilder();
    for (int c = b; c != a; c = from[c]) {
      int p = from[c];
      for (int d = 0; d < 4; d++) {
        if (nb[p * 4 + d] == c) {
          sb.append(LETTER[d]);
          break;
        }
      }
    }
    return sb.reverse().toString();
  }
}
