package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.llm.PuzzleGenerator.Settings;
import dev.speedrun.llm.PuzzleGenerator.Split;
import dev.speedrun.sokoban.Game;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PuzzleGeneratorTest {
  @TempDir Path tmp;

  @Test
  void puzzlesHaveTheBenchmarkShapeAndAVerifiedOptimalGoldAnswer() {
    List<Puzzle> ps = PuzzleGenerator.generate(Split.TRAIN, 200, 7, Settings.DEFAULT, Set.of());
    assertThat(ps).hasSize(200);
    Set<Integer> boxCounts = new HashSet<>();
    for (Puzzle p : ps) {
      assertThat(p.level().width()).isBetween(6, 7);
      assertThat(p.level().height()).isBetween(6, 7);
      assertThat(p.level().boxCount()).isBetween(2, 3);
      boxCounts.add(p.level().boxCount());
      assertThat(p.answer().length()).isBetween(5, 14);
      assertThat(new Game(p.level()).play(p.answer()).isSolved()).isTrue();
      assertThat(Reward.score(p.level(), "<answer>" + p.answer() + "</answer>").reward()).isEqualTo(1.0);
      assertThat(new Game(p.level()).play(p.answer().substring(1)).isSolved()).isFalse();
      assertThat(PuzzleGenerator.splitOf(p.question())).isEqualTo(Split.TRAIN);
    }
    assertThat(boxCounts).containsExactlyInAnyOrder(2, 3);
    assertThat(ps.stream().map(Puzzle::question).distinct()).hasSize(200);
  }

  @Test
  void sameSeedSameFileAndSplitsAreDisjoint() throws Exception {
    Path a = tmp.resolve("a.jsonl"), b = tmp.resolve("b.jsonl");
    Datasets.write(a, PuzzleGenerator.generate(Split.EVAL, 40, 1, Settings.DEFAULT, Set.of()));
    Datasets.write(b, PuzzleGenerator.generate(Split.EVAL, 40, 1, Settings.DEFAULT, Set.of()));
    assertThat(Files.readString(a)).isEqualTo(Files.readString(b));
    List<Puzzle> eval = Datasets.read(a);
    List<Puzzle> train = PuzzleGenerator.generate(Split.TRAIN, 400, 1, Settings.DEFAULT, Set.of());
    Set<String> trainBoards = train.stream().map(Puzzle::question).collect(Collectors.toSet());
    for (Puzzle p : eval) {
      assertThat(PuzzleGenerator.splitOf(p.question())).isEqualTo(Split.EVAL);
      assertThat(trainBoards).doesNotContain(p.question());
      assertThat(Level_sha(p)).startsWith("0");
    }
    assertThat(PuzzleGenerator.generate(Split.EVAL, 40, 2, Settings.DEFAULT, Set.of()))
        .isNotEqualTo(eval);
  }

  @Test
  void excludedBoardsAreSkipped() {
    List<Puzzle> first = PuzzleGenerator.generate(Split.TRAIN, 5, 3, Settings.DEFAULT, Set.of());
    Set<String> ex = Set.of(first.get(0).question(), first.get(2).question());
    List<Puzzle> again = PuzzleGenerator.generate(Split.TRAIN, 5, 3, Settings.DEFAULT, ex);
    assertThat(again.stream().map(Puzzle::question)).doesNotContainAnyElementsOf(ex)
        .contains(first.get(1).question(), first.get(3).question(), first.get(4).question());
  }

  @Test
  void paddedBoardsKeepTheLevelAtTheTopLeft() {
    Puzzle p = PuzzleGenerator.generate(Split.TRAIN, 1, 5, Settings.DEFAULT, Set.of()).get(0);
    dev.speedrun.sokoban.Level padded = PuzzleGenerator.pad10(p.level());
    assertThat(padded.width()).isEqualTo(10);
    String[] rows = padded.toXsb().split("\n");
    String[] orig = p.level().toXsb().split("\n");
    for (int r = 0; r < 10; r++) {
      String expect = r < orig.length ? orig[r] + "#".repeat(10 - orig[r].length()) : "#".repeat(10);
      assertThat(rows[r]).isEqualTo(expect);
    }
    assertThat(new Game(padded).play(p.answer()).isSolved()).isTrue();
  }

  private static String Level_sha(Puzzle p) {
    return dev.speedrun.sokoban.Level.sha256Hex(p.question());
  }
}
