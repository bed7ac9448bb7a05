package dev.speedrun.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LevelSetTest {
  static final String L0 = "; 0\n#####\n#@$.#\n#####\n\n";
  static final String L1 = "; 1\n######\n#@ $.#\n######\n\n";
  static final String L2 = "; 2\n######\n# @$.#\n######\n\n";

  @Test
  void theOfficialTestSplitMatchesItsPinnedHashes() {
    // TEST_LEVELS_SHA256 was computed independently (Python: sha256 of the raw rows per level,
    // then of the 1000 hex hashes joined by '\n').
    LevelSet s = LevelSet.load(EvaluatorTest.boxoban(), "unfiltered/test");
    assertThat(s.size()).isEqualTo(1000);
    assertThat(s.official).isTrue();
    assertThat(s.files).hasSize(1);
    assertThat(s.files.get(0).sha256()).isEqualTo(LevelSet.TEST_FILE_SHA256);
    assertThat(s.levelsSha256).isEqualTo(LevelSet.TEST_LEVELS_SHA256);
    assertThat(s.entries.get(17).address()).isEqualTo("unfiltered/test/000.txt#17");
  }

  @Test
  void ordersLevelsByIndexAndFilesByName(@TempDir Path root) throws Exception {
    Files.createDirectories(root.resolve("mini"));
    Files.writeString(root.resolve("mini/001.txt"), L0);
    Files.writeString(root.resolve("mini/000.txt"), L1.replace("; 1", "; 1") + L0.replace("; 0", "; 0"));
    LevelSet s = LevelSet.load(root, "mini");
    assertThat(s.entries).extracting(LevelSet.Entry::address).containsExactly("mini/000.txt#0", "mini/000.txt#1", "mini/001.txt#0");
    assertThat(s.official).isFalse();
  }

  @Test
  void refusesAMissingOrRepeatedLevel(@TempDir Path root) throws Exception {
    Files.createDirectories(root.resolve("gap"));
    Files.writeString(root.resolve("gap/000.txt"), L0 + L2); // level 1 missing
    assertThatThrownBy(() -> LevelSet.load(root, "gap")).isInstanceOf(UserError.class)
        .hasMessageContaining("gap/000.txt").hasMessageContaining("missing");
    Files.createDirectories(root.resolve("dup"));
    Files.writeString(root.resolve("dup/000.txt"), L0 + L0.replace("#@$.#", "#.$@#"));
    assertThatThrownBy(() -> LevelSet.load(root, "dup")).isInstanceOf(UserError.class).hasMessageContaining("appears twice");
  }

  @Test
  void refusesAnOfficialSplitThatIsNotWhatItClaims(@TempDir Path root) throws Exception {
    // unfiltered/test with 999 of its 1000 levels.
    String text = Files.readString(EvaluatorTest.boxoban().resolve("unfiltered/test/000.txt"));
    String cut = text.substring(0, text.indexOf("; 999"));
    Files.createDirectories(root.resolve("unfiltered/test"));
    Files.writeString(root.resolve("unfiltered/test/000.txt"), cut);
    assertThatThrownBy(() -> LevelSet.load(root, "unfiltered/test")).isInstanceOf(UserError.class)
        .hasMessageContaining("999 levels").hasMessageContaining("refusing");
    // 1000 levels, but one board edited: not the official file.
    String edited = text.replaceFirst("#####@####", "####@#####");
    assertThat(edited).isNotEqualTo(text);
    Files.writeString(root.resolve("unfiltered/test/000.txt"), edited);
    assertThatThrownBy(() -> LevelSet.load(root, "unfiltered/test")).isInstanceOf(UserError.class)
        .hasMessageContaining("not the official");
  }

  /** One file of a split scores as a split of its own (never official); the test file keeps its hash check. */
  @Test
  void loadsOneFileOfASplit(@TempDir Path root) throws Exception {
    Files.createDirectories(root.resolve("mini"));
    Files.writeString(root.resolve("mini/000.txt"), L0 + L1);
    Files.writeString(root.resolve("mini/001.txt"), L0);
    LevelSet s = LevelSet.load(root, "mini/000.txt");
    assertThat(s.entries).extracting(LevelSet.Entry::address).containsExactly("mini/000.txt#0", "mini/000.txt#1");
    assertThat(s.official).isFalse();
    assertThat(s.split).isEqualTo("mini/000.txt");
    assertThatThrownBy(() -> LevelSet.load(root, "mini/002.txt")).isInstanceOf(UserError.class).hasMessageContaining("no level file");
    LevelSet valid = LevelSet.load(EvaluatorTest.boxoban(), "unfiltered/valid/000.txt");
    assertThat(valid.size()).isEqualTo(1000);
    assertThat(valid.official).isFalse();
    Files.createDirectories(root.resolve("unfiltered/test"));
    Files.writeString(root.resolve("unfiltered/test/000.txt"), L0);
    assertThatThrownBy(() -> LevelSet.load(root, "unfiltered/test/000.txt")).isInstanceOf(UserError.class)
        .hasMessageContaining("not the official");
  }

  @Test
  void refusesAMissingSplit(@TempDir Path root) {
    assertThatThrownBy(() -> LevelSet.load(root, "unfiltered/test")).isInstanceOf(UserError.class).hasMessageContaining("no folder");
    assertThatThrownBy(() -> LevelSet.load(root, "../x")).isInstanceOf(UserError.class);
  }
}
