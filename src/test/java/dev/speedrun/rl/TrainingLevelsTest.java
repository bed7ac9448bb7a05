package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Training on a level file or directory of our own, with its last levels held out for validation. */
class TrainingLevelsTest {
  /** {@code count} distinct easy levels padded with walls to 10x10 (as llm dataset --boxoban-out writes them). */
  static List<Level> padded(int count, long seed) {
    List<Level> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Level l : Fixtures.easyLevels(count * 4, seed, 8)) {
      byte[] cells = new byte[100];
      LevelSampler.pad10(l, cells, 0);
      Level p = new Level(10, 10, cells);
      if (seen.add(p.toXsb()) && out.size() < count) out.add(p);
    }
    assertThat(out).hasSize(count);
    return out;
  }

  static String boxoban(List<Level> levels) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < levels.size(); i++) sb.append("; ").append(i).append('\n').append(levels.get(i).toXsb()).append("\n\n");
    return sb.toString();
  }

  static Recipe recipe(String trainLevels, int valLevels) {
    return Recipe.BASE.with(Map.of("trainLevels", trainLevels, "valLevels", String.valueOf(valLevels)));
  }

  @Test
  void pathsAreTellingApartFromSplits() {
    assertThat(TrainingLevels.isPath("unfiltered/train")).isFalse();
    assertThat(TrainingLevels.isPath("medium/valid")).isFalse();
    assertThat(TrainingLevels.isPath("/tmp/x")).isTrue();
    assertThat(TrainingLevels.isPath("./runs/train.txt")).isTrue();
    assertThat(TrainingLevels.isPath("../data/gen")).isTrue();
    assertThat(TrainingLevels.isPath("gen.txt")).isTrue();
  }

  @Test
  void fileTrainsOnAllButTheLastValLevelsAndValidatesOnThose(@TempDir Path tmp) throws Exception {
    List<Level> levels = padded(40, 3);
    Path f = tmp.resolve("gen.txt");
    Files.writeString(f, boxoban(levels));
    TrainingLevels.Loaded l = TrainingLevels.load(recipe(f.toString(), 10), 7, null);
    assertThat(l.trainSize()).isEqualTo(30);
    assertThat(l.validation()).containsExactlyElementsOf(levels.subList(30, 40));
    assertThat(l.source()).contains("30 training levels").contains("last 10 held out");
    // The sampler draws only training levels, and over many episodes all of them.
    Set<String> train = new HashSet<>(), drawn = new HashSet<>();
    for (Level t : levels.subList(0, 30)) train.add(t.toXsb());
    byte[] board = new byte[100];
    for (int env = 0; env < 8; env++) {
      for (long ep = 0; ep < 200; ep++) {
        l.train().board10(env, ep, board, 0);
        drawn.add(new Level(10, 10, board.clone()).toXsb());
      }
    }
    assertThat(train).containsAll(drawn);
    assertThat(drawn).hasSize(30);
    // Deterministic in the seed.
    TrainingLevels.Loaded again = TrainingLevels.load(recipe(f.toString(), 10), 7, null);
    assertThat(again.train().level(3, 5).toXsb()).isEqualTo(l.train().level(3, 5).toXsb());
  }

  @Test
  void directoryReadsItsTxtFilesInNameOrder(@TempDir Path tmp) throws Exception {
    List<Level> levels = padded(12, 4);
    Files.writeString(tmp.resolve("b.txt"), boxoban(levels.subList(6, 12)));
    Files.writeString(tmp.resolve("a.txt"), boxoban(levels.subList(0, 6)));
    Files.writeString(tmp.resolve("notes.md"), "not levels");
    TrainingLevels.Loaded l = TrainingLevels.load(recipe(tmp.toString(), 4), 1, null);
    assertThat(l.trainSize()).isEqualTo(8);
    assertThat(l.validation()).containsExactlyElementsOf(levels.subList(8, 12));
  }

  @Test
  void badPathsAreUserErrorsNamingTheFault(@TempDir Path tmp) throws Exception {
    assertThatThrownBy(() -> TrainingLevels.load(recipe(tmp.resolve("none.txt").toString(), 1), 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("none.txt").hasMessageContaining("no such file");
    Path small = tmp.resolve("small.txt");
    Files.writeString(small, boxoban(padded(5, 5)));
    assertThatThrownBy(() -> TrainingLevels.load(recipe(small.toString(), 5), 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("5 levels").hasMessageContaining("valLevels = 5");
    Path unpadded = tmp.resolve("unpadded.txt");
    Files.writeString(unpadded, "; 0\n#####\n#@$.#\n#####\n");
    assertThatThrownBy(() -> TrainingLevels.load(recipe(unpadded.toString(), 0), 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("unpadded.txt line 1").hasMessageContaining("5x3");
    Path broken = tmp.resolve("broken.txt");
    Files.writeString(broken, "; 0\n##########\n#@$.?    #\n");
    assertThatThrownBy(() -> TrainingLevels.load(recipe(broken.toString(), 0), 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("broken.txt");
    Path emptyDir = Files.createDirectory(tmp.resolve("empty"));
    assertThatThrownBy(() -> TrainingLevels.load(recipe(emptyDir.toString(), 0), 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("no .txt level files");
  }
}
