package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class GeneratorTest {
  @Test
  void sameSeedSameLevelsAndSeedsDiffer() {
    Generator a = new Generator(Generator.Settings.BOXOBAN), b = new Generator(Generator.Settings.BOXOBAN);
    List<Level> x = a.generate(5, 0, 10);
    assertThat(b.generate(5, 0, 10)).isEqualTo(x);
    // order of generation does not matter: level k depends only on (seed, k)
    assertThat(b.generate(5, 7)).isEqualTo(x.get(7));
    assertThat(a.generate(6, 0, 10)).isNotEqualTo(x);
    assertThat(new java.util.HashSet<>(x)).hasSize(10);
  }

  @Test
  void boxobanLevelsAreWellFormedAndSolvable() {
    Generator g = new Generator(Generator.Settings.BOXOBAN);
    for (Level l : g.generate(1, 0, 25)) {
      assertThat(l.width()).isEqualTo(10);
      assertThat(l.height()).isEqualTo(10);
      assertThat(l.boxCount()).isEqualTo(4);
      assertThat(l.boxesOnGoals()).as("reverse play keeps only states with no box on a target").isZero();
      for (int c = 0; c < 100; c++) {
        int r = c / 10, col = c % 10;
        if (r == 0 || col == 0 || r == 9 || col == 9) assertThat(l.isWall(c)).isTrue();
      }
      Solver.Result res = new Solver(l).solve(5_000_000, 60_000);
      assertThat(res.solved()).as(l.toXsb()).isTrue();
      assertThat(new Game(l).play(res.moves()).isSolved()).isTrue();
    }
  }

  @Test
  void smallRoomsWithOneBoxForLearningTests() {
    Generator g = new Generator(Generator.Settings.of(6, 6, 1));
    for (Level l : g.generate(2, 0, 40)) {
      assertThat(l.width()).isEqualTo(6);
      assertThat(l.boxCount()).isEqualTo(1);
      assertThat(l.boxesOnGoals()).isZero();
      assertThat(new Solver(l).solve(1_000_000, 60_000).solved()).as(l.toXsb()).isTrue();
    }
    Generator g2 = new Generator(Generator.Settings.of(10, 10, 2));
    for (Level l : g2.generate(3, 0, 10)) {
      assertThat(l.boxCount()).isEqualTo(2);
      assertThat(new Solver(l).solve(1_000_000, 60_000).solved()).isTrue();
    }
  }

  @Test
  void impossibleSettingsAreRejected() {
    assertThatThrownBy(() -> Generator.Settings.of(4, 4, 3)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("do not fit");
    assertThatThrownBy(() -> Generator.Settings.of(2, 10, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Generator.Settings.of(10, 10, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void generatedFileReadsBackThroughTheStore() throws Exception {
    Generator g = new Generator(Generator.Settings.BOXOBAN);
    List<Level> ls = g.generate(9, 0, 5);
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("gen");
    try {
      java.nio.file.Files.writeString(dir.resolve("000.txt"), Formats.toBoxoban(ls));
      LevelStore s = LevelStore.load(dir, "gen", null);
      assertThat(s.levels()).isEqualTo(ls);
    } finally {
      try (var files = java.nio.file.Files.list(dir)) {
        for (var f : files.toList()) java.nio.file.Files.delete(f);
      }
      java.nio.file.Files.delete(dir);
    }
  }
}
