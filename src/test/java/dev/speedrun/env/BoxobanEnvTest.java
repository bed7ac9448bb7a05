package dev.speedrun.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelStore;
import dev.speedrun.sokoban.TestData;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoxobanEnvTest {
  static final int NOOP = 0, DOWN = 1, UP = 2, LEFT = 3, RIGHT = 4;
  static final int A = BoxobanEnv.PLANE_AGENT * 100, W = BoxobanEnv.PLANE_WALL * 100,
      B = BoxobanEnv.PLANE_BOX * 100, T = BoxobanEnv.PLANE_TARGET * 100;

  static Level xsb(String... rows) {
    return Formats.parseXsb(String.join("\n", rows), "test");
  }

  /** One environment playing {@code levels} in order. */
  static BoxobanEnv env(Level... levels) {
    BoxobanEnv e = new BoxobanEnv(1, LevelSampler.inOrder(List.of(levels), 1));
    e.reset();
    return e;
  }

  static float step(BoxobanEnv e, int action) {
    e.step(new int[] {action});
    return e.rewards[0];
  }

  static int cell(int r, int c) { return r * 10 + c; }

  // A 6x5 room: player, box, floor, target in a row.
  static final Level ROW = xsb(
      "######",
      "#@$ .#",
      "#    #",
      "#    #",
      "######");

  @Test
  void smallLevelSitsTopLeftPaddedWithWalls() {
    BoxobanEnv e = env(ROW);
    byte[] o = e.obs;
    for (int r = 0; r < 10; r++) {
      for (int c = 0; c < 10; c++) {
        boolean inside = r >= 1 && r <= 3 && c >= 1 && c <= 4;
        assertThat(o[W + cell(r, c)]).as("wall at %d,%d", r, c).isEqualTo((byte) (inside ? 0 : 1));
      }
    }
    assertThat(o[A + cell(1, 1)]).isEqualTo((byte) 1);
    assertThat(o[B + cell(1, 2)]).isEqualTo((byte) 1);
    assertThat(o[T + cell(1, 4)]).isEqualTo((byte) 1);
    assertThat(sum(o, A)).isEqualTo(1);
    assertThat(sum(o, B)).isEqualTo(1);
    assertThat(sum(o, T)).isEqualTo(1);
    assertThat(e.board(0).toXsb()).isEqualTo(
        "##########\n#@$ .#####\n#    #####\n#    #####\n##########\n##########\n##########\n##########\n##########\n##########");
  }

  static int sum(byte[] o, int plane) {
    int s = 0;
    for (int c = 0; c < 100; c++) s += o[plane + c];
    return s;
  }

  @Test
  void walkingMovesTheAgentOnly() {
    BoxobanEnv e = env(ROW);
    assertThat(step(e, DOWN)).isZero();
    assertThat(e.agent(0)).isEqualTo(cell(2, 1));
    assertThat(e.obs[A + cell(2, 1)]).isEqualTo((byte) 1);
    assertThat(e.obs[A + cell(1, 1)]).isZero();
    assertThat(sum(e.obs, A)).isEqualTo(1);
    assertThat(e.dones[0]).isFalse();
    step(e, RIGHT);
    step(e, UP); // onto... no: (1,2) holds the box; pushing it up hits the wall: blocked
    assertThat(e.agent(0)).isEqualTo(cell(2, 2));
    assertThat(e.board(0).hasBox(cell(1, 2))).isTrue();
  }

  @Test
  void wallsBlockAndNoopWaits() {
    BoxobanEnv e = env(ROW);
    byte[] before = e.obs.clone();
    step(e, UP);
    step(e, LEFT);
    step(e, NOOP);
    assertThat(e.obs).isEqualTo(before);
    assertThat(e.steps(0)).isEqualTo(3);
    assertThat(e.rewards[0]).isZero();
  }

  @Test
  void pushMovesTheBoxIntoFloorOrGoal() {
    BoxobanEnv e = env(xsb(
        "######",
        "#@$ .#",
        "#   .#",
        "#  $ #",
        "######"));
    assertThat(step(e, RIGHT)).isZero(); // box onto floor
    assertThat(e.agent(0)).isEqualTo(cell(1, 2));
    assertThat(e.obs[B + cell(1, 3)]).isEqualTo((byte) 1);
    assertThat(e.obs[B + cell(1, 2)]).isZero();
    assertThat(step(e, RIGHT)).isEqualTo(0.25f); // box onto goal
    assertThat(e.obs[B + cell(1, 4)]).isEqualTo((byte) 1);
    assertThat(e.dones[0]).isFalse();
  }

  @Test
  void pushesBlockedByWallAndByBoxBehindBox() {
    Level l = xsb(
        "#######",
        "#@$$ .#",
        "#$    #",
        "#.   .#",
        "#######");
    BoxobanEnv e = env(l);
    byte[] before = e.obs.clone();
    step(e, RIGHT); // box behind box
    assertThat(e.obs).isEqualTo(before);
    step(e, DOWN); // box at (2,1), beyond is goal (3,1): allowed
    assertThat(e.agent(0)).isEqualTo(cell(2, 1));
    byte[] mid = e.obs.clone();
    step(e, DOWN); // box at (3,1) against the wall: blocked
    assertThat(e.obs).isEqualTo(mid);
    assertThat(e.agent(0)).isEqualTo(cell(2, 1));
  }

  @Test
  void boardEdgeWithoutWallsBlocksAndDoesNotWrap() {
    // A full 10x10 level with floor on its border: moves off the board are blocked, never wrapped.
    String[] rows = new String[10];
    Arrays.fill(rows, "          ");
    rows[0] = "@$        ";
    rows[9] = "$.       .";
    rows[5] = ".        $";
    BoxobanEnv e = env(xsb(rows));
    byte[] before = e.obs.clone();
    step(e, UP);
    step(e, LEFT);
    assertThat(e.obs).isEqualTo(before);
    for (int k = 0; k < 8; k++) step(e, RIGHT); // push the box to column 9
    assertThat(e.agent(0)).isEqualTo(cell(0, 8));
    assertThat(e.obs[B + cell(0, 9)]).isEqualTo((byte) 1);
    step(e, RIGHT); // box at the right edge: blocked, and no wrap to the next row
    assertThat(e.agent(0)).isEqualTo(cell(0, 8));
    assertThat(e.obs[B + cell(1, 0)]).isZero();
  }

  @Test
  void targetBonusIsEarnedOncePerTargetPerEpisode() {
    BoxobanEnv e = env(xsb(
        "########",
        "#@$ .  #",
        "#      #",
        "#  $ . #",
        "########"));
    assertThat(step(e, RIGHT)).isZero();
    assertThat(step(e, RIGHT)).isEqualTo(0.25f); // on
    assertThat(step(e, RIGHT)).isZero(); // off
    for (int a : new int[] {DOWN, RIGHT, RIGHT, UP}) assertThat(step(e, a)).isZero();
    assertThat(step(e, LEFT)).isZero(); // on again: no second bonus
    assertThat(e.board(0).hasBox(cell(1, 4))).isTrue();
    float total = 0.25f;
    // now the other box onto the other target: a new target earns, and solving adds 1
    for (int a : new int[] {DOWN, LEFT, LEFT, LEFT, DOWN}) assertThat(step(e, a)).isZero();
    assertThat(e.agent(0)).isEqualTo(cell(3, 2));
    float r = step(e, RIGHT); // box (3,3) -> (3,4)
    assertThat(r).isZero();
    r = step(e, RIGHT); // -> (3,5): target, solves
    assertThat(r).isEqualTo(1.25f);
    assertThat(e.dones[0]).isTrue();
    assertThat(e.lastSolved[0]).isTrue();
    assertThat(e.lastTargetsReached[0]).isEqualTo(2);
    assertThat(e.lastReturn[0]).isCloseTo(total + 1.25f, within(1e-6f));
    assertThat(e.lastLength[0]).isEqualTo(15);
  }

  @Test
  void boxOnTargetAtResetEarnsNothing() {
    BoxobanEnv e = env(xsb(
        "#######",
        "#@*   #",
        "#     #",
        "#.  $ #",
        "#######"));
    for (int a : new int[] {RIGHT, DOWN, RIGHT, RIGHT, UP}) assertThat(step(e, a)).isZero();
    assertThat(e.board(0).hasBox(cell(1, 3))).isTrue();
    assertThat(step(e, LEFT)).isZero(); // back onto the target it started on: no bonus
    assertThat(e.board(0).hasBox(cell(1, 2))).isTrue();
    assertThat(e.agent(0)).isEqualTo(cell(1, 3));
  }

  @Test
  void solvingPushEarnsTargetAndSolveReward() {
    BoxobanEnv e = env(ROW, ROW);
    assertThat(step(e, RIGHT)).isZero();
    assertThat(step(e, RIGHT)).isEqualTo(1.25f);
    assertThat(e.dones[0]).isTrue();
    assertThat(e.lastSolved[0]).isTrue();
    assertThat(e.lastLength[0]).isEqualTo(2);
    assertThat(e.lastReturn[0]).isEqualTo(1.25f);
    assertThat(e.lastTargetsReached[0]).isEqualTo(1);
  }

  @Test
  void timeoutAt120StepsAndSolveIsCheckedFirst() {
    BoxobanEnv e = env(ROW);
    for (int t = 1; t < 120; t++) {
      assertThat(step(e, NOOP)).isZero();
      assertThat(e.dones[0]).as("step %d", t).isFalse();
    }
    assertThat(step(e, NOOP)).isEqualTo(-1f);
    assertThat(e.dones[0]).isTrue();
    assertThat(e.lastSolved[0]).isFalse();
    assertThat(e.lastLength[0]).isEqualTo(120);
    assertThat(e.lastReturn[0]).isEqualTo(-1f);
    // Solve exactly at step 120: solved, +1.25, no timeout penalty.
    for (int t = 1; t < 119; t++) step(e, NOOP);
    assertThat(step(e, RIGHT)).isZero();
    assertThat(step(e, RIGHT)).isEqualTo(1.25f);
    assertThat(e.dones[0]).isTrue();
    assertThat(e.lastSolved[0]).isTrue();
    assertThat(e.lastLength[0]).isEqualTo(120);
  }

  @Test
  void autoResetLoadsTheNextLevelAndKeepsLastEpisodeStats() {
    Level second = xsb(
        "#####",
        "#. @#",
        "# $ #",
        "#####");
    BoxobanEnv e = env(ROW, second);
    step(e, RIGHT);
    step(e, RIGHT);
    assertThat(e.dones[0]).isTrue();
    assertThat(e.episode(0)).isEqualTo(1);
    assertThat(e.steps(0)).isZero();
    assertThat(e.board(0)).isEqualTo(padded(second));
    assertThat(e.obs[A + cell(1, 3)]).isEqualTo((byte) 1);
    assertThat(sum(e.obs, A)).isEqualTo(1);
    assertThat(e.lastSolved[0]).isTrue();
    step(e, NOOP);
    assertThat(e.dones[0]).isFalse();
    assertThat(e.rewards[0]).isZero();
    assertThat(e.lastSolved[0]).as("stats stay until the next episode ends").isTrue();
  }

  static Level padded(Level l) {
    byte[] b = new byte[100];
    LevelSampler.pad10(l, b, 0);
    return new Level(10, 10, b);
  }

  @Test
  void configurableRewards() {
    BoxobanEnv e = new BoxobanEnv(1, LevelSampler.inOrder(List.of(ROW), 1), new BoxobanEnv.Rewards(0.5f, 2f, -3f, 5));
    e.reset();
    for (int t = 0; t < 4; t++) step(e, NOOP);
    assertThat(step(e, NOOP)).isEqualTo(-3f);
    step(e, RIGHT);
    assertThat(step(e, RIGHT)).isEqualTo(2.5f);
  }

  @Test
  void activeIndicesAreTheNonZeroObservationEntries() {
    BoxobanEnv e = env(ROW);
    int[] idx = new int[400];
    int n = e.activeIndices(0, idx, 0);
    int expected = 0;
    for (int j = 0; j < 400; j++) if (e.obs[j] != 0) assertThat(idx[expected++]).isEqualTo(j);
    assertThat(n).isEqualTo(expected);
  }

  @Test
  void samplersAreDeterministicAndStoreSamplersMatchListSamplers() {
    LevelStore store = TestData.unfilteredTest();
    List<Level> list = store.levels();
    LevelSampler a = LevelSampler.uniform(store, 7), b = LevelSampler.uniform(store, 7);
    LevelSampler c = LevelSampler.uniform(list, 7), other = LevelSampler.uniform(store, 8);
    int differ = 0;
    byte[] board = new byte[100];
    for (int env = 0; env < 20; env++) {
      for (long ep = 0; ep < 20; ep++) {
        assertThat(a.level(env, ep)).isEqualTo(b.level(env, ep)).isEqualTo(c.level(env, ep));
        a.board10(env, ep, board, 0);
        assertThat(new Level(10, 10, board)).isEqualTo(c.level(env, ep));
        if (!other.level(env, ep).equals(a.level(env, ep))) differ++;
      }
    }
    assertThat(differ).isGreaterThan(350);
    LevelSampler inOrder = LevelSampler.inOrder(store, 4);
    assertThat(inOrder.level(1, 2)).isEqualTo(list.get(9));
    assertThat(inOrder.level(3, 249)).isEqualTo(list.get(999));
    assertThat(inOrder.level(0, 250)).isEqualTo(list.get(0));
    assertThat(LevelSampler.inOrder(list, 4).level(1, 2)).isEqualTo(list.get(9));
  }

  @Test
  void sameSeedSameRun() {
    LevelStore store = TestData.unfilteredTest();
    BoxobanEnv x = new BoxobanEnv(8, LevelSampler.uniform(store, 3)), y = new BoxobanEnv(8, LevelSampler.uniform(store, 3));
    x.reset();
    y.reset();
    Rng rng = new Rng(1);
    int[] act = new int[8];
    for (int t = 0; t < 2000; t++) {
      for (int i = 0; i < 8; i++) act[i] = rng.nextInt(5);
      x.step(act);
      y.step(act, 0, 4);
      y.step(act, 4, 8);
      assertThat(y.obs).isEqualTo(x.obs);
      assertThat(y.rewards).isEqualTo(x.rewards);
      assertThat(y.dones).isEqualTo(x.dones);
    }
  }

  @Test
  void saveAndLoadStateRoundTrip() {
    LevelStore store = TestData.unfilteredTest();
    int n = 6;
    BoxobanEnv x = new BoxobanEnv(n, LevelSampler.uniform(store, 5));
    x.reset();
    Rng rng = new Rng(2);
    int[] act = new int[n];
    for (int t = 0; t < 300; t++) {
      for (int i = 0; i < n; i++) act[i] = rng.nextInt(5);
      x.step(act);
    }
    ByteBuffer buf = ByteBuffer.allocate(BoxobanEnv.stateBytes(n));
    x.saveState(buf);
    assertThat(buf.remaining()).isZero();
    BoxobanEnv y = new BoxobanEnv(n, LevelSampler.uniform(store, 5));
    buf.flip();
    y.loadState(buf);
    assertThat(y.obs).isEqualTo(x.obs);
    long rngState = rng.state();
    Rng r2 = new Rng(rngState);
    for (int t = 0; t < 500; t++) {
      for (int i = 0; i < n; i++) act[i] = rng.nextInt(5);
      x.step(act);
      for (int i = 0; i < n; i++) assertThat(r2.nextInt(5)).isEqualTo(act[i]);
      y.step(act);
      assertThat(y.obs).isEqualTo(x.obs);
      assertThat(y.rewards).isEqualTo(x.rewards);
      assertThat(y.dones).isEqualTo(x.dones);
      for (int i = 0; i < n; i++) {
        if (x.dones[i]) {
          assertThat(y.lastReturn[i]).isEqualTo(x.lastReturn[i]);
          assertThat(y.lastLength[i]).isEqualTo(x.lastLength[i]);
        }
      }
      for (int i = 0; i < n; i++) assertThat(y.episode(i)).isEqualTo(x.episode(i));
    }
  }

  /**
   * Independent check: the environment against {@link Game} (the rules written separately) with
   * rewards recomputed from the boards, on random action sequences over real Boxoban levels.
   */
  @Test
  void matchesGameOnRandomPlayOverRealLevels() {
    LevelStore store = TestData.unfilteredTest();
    int n = 32;
    LevelSampler sampler = LevelSampler.uniform(store, 11);
    BoxobanEnv e = new BoxobanEnv(n, sampler);
    e.reset();
    Game[] games = new Game[n];
    boolean[][] rewarded = new boolean[n][100];
    float[] ret = new float[n];
    int[] t = new int[n];
    for (int i = 0; i < n; i++) games[i] = startGame(sampler.level(i, 0), rewarded[i]);
    Rng rng = new Rng(99);
    int[] act = new int[n];
    int episodes = 0, solved = 0, bonuses = 0;
    // Actions biased towards pushing in one direction for a while, to reach targets more often.
    int[] bias = new int[n];
    for (int step = 0; step < 6000; step++) {
      for (int i = 0; i < n; i++) {
        if (rng.nextInt(8) == 0) bias[i] = rng.nextInt(5);
        act[i] = rng.nextInt(3) == 0 ? bias[i] : rng.nextInt(5);
      }
      e.step(act);
      for (int i = 0; i < n; i++) {
        Game g = games[i];
        float r = 0;
        Direction d = Direction.ofAction(act[i]);
        if (d != null && g.move(d) == Game.Move.PUSHED) {
          int p = g.player(), dr = d.dRow, dc = d.dCol;
          int box = (p / 10 + dr) * 10 + p % 10 + dc;
          if (g.toLevel().isGoal(box) && !rewarded[i][box]) {
            rewarded[i][box] = true;
            r += 0.25f;
            bonuses++;
          }
        }
        t[i]++;
        boolean done = false, win = g.isSolved();
        if (win) {
          r += 1f;
          done = true;
        } else if (t[i] >= 120) {
          r -= 1f;
          done = true;
        }
        ret[i] += r;
        assertThat(e.rewards[i]).as("reward env %d step %d", i, step).isEqualTo(r);
        assertThat(e.dones[i]).isEqualTo(done);
        if (done) {
          episodes++;
          if (win) solved++;
          assertThat(e.lastSolved[i]).isEqualTo(win);
          assertThat(e.lastLength[i]).isEqualTo(t[i]);
          assertThat(e.lastReturn[i]).isCloseTo(ret[i], within(1e-5f));
          games[i] = startGame(sampler.level(i, e.episode(i)), rewarded[i]);
          t[i] = 0;
          ret[i] = 0;
        }
        assertThat(e.board(i)).as("env %d step %d", i, step).isEqualTo(games[i].toLevel());
        assertObsEncodes(e, i, games[i].toLevel());
      }
    }
    assertThat(episodes).isGreaterThan(1000);
    assertThat(bonuses).isGreaterThan(100);
    System.out.printf("env vs Game: %d steps, %d episodes, %d solved, %d target bonuses%n", 6000 * n, episodes, solved, bonuses);
  }

  static Game startGame(Level l, boolean[] rewarded) {
    for (int c = 0; c < 100; c++) rewarded[c] = l.hasBox(c) && l.isGoal(c);
    return new Game(l);
  }

  static void assertObsEncodes(BoxobanEnv e, int i, Level l) {
    int o = i * 400;
    for (int c = 0; c < 100; c++) {
      if (e.obs[o + A + c] != (c == l.player() ? 1 : 0)
          || e.obs[o + W + c] != (l.isWall(c) ? 1 : 0)
          || e.obs[o + B + c] != (l.hasBox(c) ? 1 : 0)
          || e.obs[o + T + c] != (l.isGoal(c) ? 1 : 0)) {
        throw new AssertionError("observation of env " + i + " differs from its board at cell " + c);
      }
    }
  }

  /** Solver solutions played through the environment solve with return 1 + 0.25 per target. */
  @Test
  void solverSolutionsSolveInTheEnvironment() {
    LevelStore store = TestData.unfilteredTest();
    int solved = 0;
    for (int k = 0; k < 1000; k += 25) {
      Level l = store.level(k);
      dev.speedrun.sokoban.Solver.Result r = new dev.speedrun.sokoban.Solver(l).solve(2_000_000, 60_000);
      assertThat(r.solved()).isTrue();
      if (r.moves().length() > 120) continue;
      BoxobanEnv e = env(l);
      float ret = 0;
      for (int t = 0; t < r.moves().length(); t++) {
        step(e, Direction.ofLetter(r.moves().charAt(t)).action());
        ret += e.rewards[0];
        assertThat(e.dones[0]).isEqualTo(t == r.moves().length() - 1);
      }
      assertThat(e.lastSolved[0]).isTrue();
      assertThat(e.lastTargetsReached[0]).isEqualTo(l.boxCount());
      assertThat(ret).isCloseTo(1f + 0.25f * l.boxCount(), within(1e-6f));
      solved++;
    }
    assertThat(solved).isGreaterThan(30);
  }
}
