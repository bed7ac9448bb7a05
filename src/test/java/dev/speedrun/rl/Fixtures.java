package dev.speedrun.rl;

import dev.speedrun.env.Rng;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;

/** Test fixtures: easy generated levels and a small policy/optimizer factory. */
final class Fixtures {
  private Fixtures() {}

  /**
   * One-box levels in open rooms of 3x3 to 5x5 floor cells (walls around): the box stands 1 to 3
   * cells from its goal on a straight line, with a free cell behind it, so one straight push run
   * after walking round solves it.
   */
  static List<Level> easyLevels(int count, long seed) {
    return easyLevels(count, seed, 5);
  }

  /** As above with floor sides from 3 to {@code maxSide}. */
  static List<Level> easyLevels(int count, long seed, int maxSide) {
    return easyLevels(count, seed, maxSide, false);
  }

  /** With {@code behind}, the player starts on the cell behind the box (one straight push run solves it). */
  static List<Level> easyLevels(int count, long seed, int maxSide, boolean behind) {
    Rng rng = new Rng(seed);
    List<Level> out = new ArrayList<>();
    while (out.size() < count) {
      int w = 3 + rng.nextInt(maxSide - 2), h = 3 + rng.nextInt(maxSide - 2); // floor size
      int W = w + 2, H = h + 2;
      byte[] cells = new byte[W * H];
      for (int r = 0; r < H; r++) for (int c = 0; c < W; c++) {
        if (r == 0 || c == 0 || r == H - 1 || c == W - 1) cells[r * W + c] = Level.WALL;
      }
      boolean horizontal = rng.nextInt(2) == 0;
      int len = horizontal ? w : h;
      int goal = rng.nextInt(len), box = rng.nextInt(len);
      int dir = Integer.signum(goal - box); // push direction along the line
      int back = box - dir;
      if (goal == box || back < 0 || back >= len) continue;
      int other = rng.nextInt(horizontal ? h : w);
      int gCell = horizontal ? (other + 1) * W + goal + 1 : (goal + 1) * W + other + 1;
      int bCell = horizontal ? (other + 1) * W + box + 1 : (box + 1) * W + other + 1;
      cells[gCell] |= Level.GOAL;
      cells[bCell] |= Level.BOX;
      int p = horizontal ? (other + 1) * W + back + 1 : (back + 1) * W + other + 1;
      if (!behind) do {
        p = (1 + rng.nextInt(h)) * W + 1 + rng.nextInt(w);
      } while (p == gCell || p == bCell);
      cells[p] |= Level.PLAYER;
      out.add(new Level(W, H, cells));
    }
    return out;
  }

  /** The production factory (the network engine's policy and optimizers). */
  static TrainingRun.Factory small() {
    return TrainingRun.ENGINE;
  }
}
