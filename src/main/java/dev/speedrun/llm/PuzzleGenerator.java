package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.speedrun.env.Rng;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The LLM track's puzzle generator, after reasoning-gym's procedure: start from a room of walls
 * with the boxes on their goals, carve the room by a random walk of the player that, played
 * backwards, pulls boxes off their goals; keep only levels {@link TinySolver} solves, with the
 * optimal solution as the gold answer.
 *
 * <p>Shape: width and height 6 or 7 (border included), 2 or 3 boxes, a solution of
 * {@link Settings#minMoves}..{@link Settings#maxMoves} moves.
 *
 * <p>Determinism: attempt {@code a} of a split draws from {@code Rng.mix(seed, split, a)}, so a
 * seed gives the same file on any machine. Disjointness: a board belongs to the eval split iff
 * the sha256 of its question text starts with hex digit {@code 0} (1/16 of all boards), else to
 * train, so no board can be in both splits whatever the seeds. Boards are unique within a file,
 * and boards of {@code exclude} (e.g. the benchmark's own eval set) are skipped.
 */
public final class PuzzleGenerator {
  private PuzzleGenerator() {}

  public enum Split { TRAIN, EVAL }

  /** Generation settings; the defaults match the benchmark's puzzles. */
  public record Settings(int minSide, int maxSide, int minBoxes, int maxBoxes, int minMoves,
      int maxMoves, int maxStates) {
    public static final Settings DEFAULT = new Settings(6, 7, 2, 3, 5, 14, 200_000);
  }

  static final String SOURCE = "speedrun-java-sokoban";

  /** The split a board belongs to. */
  public static Split splitOf(String question) {
    return Level.sha256Hex(question).charAt(0) == '0' ? Split.EVAL : Split.TRAIN;
  }

  /** Generates {@code count} puzzles of {@code split} from {@code seed}. */
  public static List<Puzzle> generate(Split split, int count, long seed, Settings s, Set<String> exclude) {
    List<Puzzle> out = new ArrayList<>(count);
    Set<String> seen = new HashSet<>(exclude);
    ObjectNode difficulty = Datasets.JSON.createObjectNode();
    difficulty.putArray("width").add(s.minSide()).add(s.maxSide());
    difficulty.putArray("height").add(s.minSide()).add(s.maxSide());
    long maxAttempts = 10_000L * count + 100_000L;
    for (long a = 0; out.size() < count; a++) {
      if (a >= maxAttempts) {
        throw new dev.speedrun.UserError("found only " + out.size() + " of " + count + " puzzles in " + a
            + " attempts; the settings are too narrow (" + s.minMoves() + ".." + s.maxMoves() + " moves)");
      }
      Rng rng = new Rng(Rng.mix(seed, split.ordinal(), a));
      Level level = carve(rng, s);
      if (level == null) continue;
      String q = LlmBoard.question(level);
      if (splitOf(q) != split || seen.contains(q)) continue;
      TinySolver.Solution sol = TinySolver.solve(level, s.maxStates());
      if (sol.moves() == null) continue;
      int len = sol.moves().length();
      if (len < s.minMoves() || len > s.maxMoves()) continue;
      seen.add(q);
      Map<String, JsonNode> extra = new LinkedHashMap<>();
      extra.put("split", TextNode.valueOf(split.name().toLowerCase()));
      extra.put("seed", com.fasterxml.jackson.databind.node.LongNode.valueOf(seed));
      extra.put("attempt", com.fasterxml.jackson.databind.node.LongNode.valueOf(a));
      extra.put("boxes", IntNode.valueOf(level.boxCount()));
      extra.put("ref_moves", IntNode.valueOf(len));
      out.add(Puzzle.of(level, sol.moves(), SOURCE, out.size(), difficulty, extra));
    }
    return out;
  }

  /**
   * One attempt: a {@code w x h} room of walls, boxes placed on goals at distinct interior cells,
   * the player on another; then a random walk whose reverse pulls boxes: stepping away from a box
   * directly behind the player drags it along with probability 1/2. Every cell the player or a box
   * visits becomes floor. Null when the walk leaves every box on its goal.
   */
  static Level carve(Rng rng, Settings s) {
    int w = s.minSide() + rng.nextInt(s.maxSide() - s.minSide() + 1);
    int h = s.minSide() + rng.nextInt(s.maxSide() - s.minSide() + 1);
    int nb = s.minBoxes() + rng.nextInt(s.maxBoxes() - s.minBoxes() + 1);
    int iw = w - 2, ih = h - 2;
    boolean[] floor = new boolean[w * h], goal = new boolean[w * h], box = new boolean[w * h];
    for (int b = 0; b < nb; ) {
      int cell = (1 + rng.nextInt(ih)) * w + 1 + rng.nextInt(iw);
      if (goal[cell]) continue;
      goal[cell] = box[cell] = floor[cell] = true;
      b++;
    }
    int player;
    do {
      player = (1 + rng.nextInt(ih)) * w + 1 + rng.nextInt(iw);
    } while (box[player]);
    floor[player] = true;
    int steps = 2 * (iw * ih) + rng.nextInt(2 * iw * ih);
    int[] dr = {-1, 1, 0, 0}, dc = {0, 0, -1, 1};
    for (int t = 0; t < steps; t++) {
      int d = rng.nextInt(4);
      int pr = player / w, pc = player % w;
      int r = pr + dr[d], c = pc + dc[d];
      if (r < 1 || c < 1 || r > ih || c > iw) continue;
      int next = r * w + c;
      if (box[next]) continue;
      int br = pr - dr[d], bc = pc - dc[d];
      boolean pull = rng.nextInt(2) == 0;
      if (pull && br >= 1 && bc >= 1 && br <= ih && bc <= iw && box[br * w + bc]) {
        box[br * w + bc] = false;
        box[player] = true;
      }
      player = next;
      floor[next] = true;
    }
    byte[] cells = new byte[w * h];
    boolean allOnGoals = true;
    for (int i = 0; i < cells.length; i++) {
      byte f = floor[i] ? 0 : Level.WALL;
      if (goal[i]) f |= Level.GOAL;
      if (box[i]) {
        f |= Level.BOX;
        if (!goal[i]) allOnGoals = false;
      }
      if (i == player) f |= Level.PLAYER;
      cells[i] = f;
    }
    return allOnGoals ? null : new Level(w, h, cells);
  }

  /** The board padded with walls to 10x10 at the top-left, as the agents' environment sees it. */
  public static Level pad10(Level level) {
    byte[] cells = new byte[100];
    dev.speedrun.env.LevelSampler.pad10(level, cells, 0);
    return new Level(10, 10, cells);
  }
}
