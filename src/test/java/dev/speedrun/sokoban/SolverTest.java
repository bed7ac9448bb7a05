package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SolverTest {
  static Level xsb(String... rows) {
    return Formats.parseXsb(String.join("\n", rows), "t");
  }

  @Test
  void solvesAHandWorkedLevelWithTheFewestPushes() {
    Level l = xsb(
        "#######",
        "#     #",
        "# $@$ #",
        "#.   .#",
        "#######");
    Solver.Result r = new Solver(l).solve(100_000, 10_000);
    assertThat(r.solved()).isTrue();
    // each box: one push down, one sideways (from (2,2) to (3,1): down then left = 2 pushes each)
    assertThat(r.pushes()).isEqualTo(4);
    assertThat(new Game(l).play(r.moves()).isSolved()).isTrue();
  }

  @Test
  void alreadySolvedNeedsNoMoves() {
    Solver.Result r = new Solver(xsb("#####", "#@* #", "#####")).solve(10, 1000);
    assertThat(r.solved()).isTrue();
    assertThat(r.moves()).isEmpty();
  }

  @Test
  void deadSquaresAreCornersAndDeadWallsNotGoals() {
    Level l = xsb(
        "######",
        "#    #",
        "# $@.#",
        "#    #",
        "######");
    Solver s = new Solver(l);
    int w = 6;
    assertThat(s.isDead(1 * w + 1)).isTrue(); // corner
    assertThat(s.isDead(1 * w + 2)).isTrue(); // along the top wall, no goal on it
    assertThat(s.isDead(2 * w + 1)).isTrue(); // along the left wall
    assertThat(s.isDead(2 * w + 4)).isFalse(); // the goal
    assertThat(s.isDead(2 * w + 2)).isFalse();
    assertThat(s.isDead(1 * w + 4)).isTrue(); // corner next to the goal column: cannot be pushed out
  }

  @Test
  void provesUnsolvableLevelsUnsolvable() {
    // box in a corner
    assertThat(new Solver(xsb("#####", "#$  #", "# @.#", "#####")).solve(100_000, 10_000).status())
        .isEqualTo(Solver.Status.UNSOLVABLE);
    // two boxes side by side against a wall (frozen), goals elsewhere
    Level frozen = xsb(
        "#######",
        "#     #",
        "#  @  #",
        "#.$$ .#",
        "#######");
    assertThat(new Solver(frozen).solve(100_000, 10_000).status()).isEqualTo(Solver.Status.UNSOLVABLE);
  }

  @Test
  void respectsTheExpansionLimit() {
    Level l = TestData.unfilteredTest().level(0);
    Solver.Result r = new Solver(l).solve(1, 10_000);
    assertThat(r.status()).isIn(Solver.Status.LIMIT, Solver.Status.SOLVED);
  }

  /** Every level of unfiltered/test is solved, and every solution replays to solved. */
  @Test
  void solutionsOfRealLevelsReplayToSolved() {
    LevelStore s = TestData.unfilteredTest();
    for (int k = 0; k < 1000; k++) {
      Level l = s.level(k);
      Solver.Result r = new Solver(l).solve(2_000_000, 60_000);
      assertThat(r.solved()).as(s.address(k)).isTrue();
      Game g = new Game(l).play(r.moves());
      assertThat(g.isSolved()).as(s.address(k)).isTrue();
      assertThat(g.pushes()).isEqualTo(r.pushes());
    }
  }

  @Test
  void weightedSearchAlsoSolves() {
    LevelStore s = TestData.unfilteredTest();
    for (int k = 5; k < 1000; k += 50) {
      Solver.Result r = new Solver(s.level(k), 3.0).solve(2_000_000, 60_000);
      assertThat(r.solved()).isTrue();
      assertThat(new Game(s.level(k)).play(r.moves()).isSolved()).isTrue();
    }
  }
}
