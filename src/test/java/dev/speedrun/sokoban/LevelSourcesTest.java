package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LevelSourcesTest {
  @TempDir Path tmp;

  @Test
  void flagComesFirstAndAMissingFlagDirectoryIsAnError() throws Exception {
    assertThat(LevelSources.root(tmp.toString())).isEqualTo(tmp.toAbsolutePath().normalize());
    assertThat(LevelSources.candidates(tmp.toString()).get(0).origin()).isEqualTo("--levels");
    assertThatThrownBy(() -> LevelSources.root(tmp.resolve("nope").toString())).isInstanceOf(UserError.class)
        .hasMessageContaining("--levels").hasMessageContaining("no such directory");
  }

  @Test
  void sharedDataIsFoundWithoutFlag() {
    // (unless SOKOBAN_LEVELS is set in the test environment, which then comes first)
    if (System.getenv(LevelSources.ENV_VAR) == null) {
      assertThat(LevelSources.root(null)).isEqualTo(TestData.boxoban().toAbsolutePath().normalize());
    }
    assertThat(LevelSources.splits(TestData.boxoban())).contains("unfiltered/test", "unfiltered/train", "hard");
  }

  @Test
  void levelSpecs() throws Exception {
    String root = TestData.boxoban().toString();
    Level viaAddress = LevelSources.level("unfiltered/test/000.txt#17", root, null);
    LevelStore test = TestData.unfilteredTest();
    assertThat(viaAddress).isEqualTo(test.level(17));
    Path file = TestData.boxoban().resolve("unfiltered/test/000.txt");
    assertThat(LevelSources.level(file + "#999", null, null)).isEqualTo(test.level(999));
    Path xsb = tmp.resolve("one.xsb");
    Files.writeString(xsb, "#####\n#@$.#\n#####\n");
    assertThat(LevelSources.level(xsb.toString(), null, null).toXsb()).isEqualTo("#####\n#@$.#\n#####");
    Path rg = tmp.resolve("one.txt");
    Files.writeString(rg, "+ + + + +\n+ * @ X +\n+ + + + +\n");
    assertThat(LevelSources.level(rg.toString(), null, null).toXsb()).isEqualTo("#####\n#@$.#\n#####");
    assertThatThrownBy(() -> LevelSources.level(file.toString(), null, null)).isInstanceOf(UserError.class)
        .hasMessageContaining("holds 1000 levels; pick one with");
    assertThatThrownBy(() -> LevelSources.level(file + "#1000", null, null)).hasMessageContaining("no level '; 1000'");
    assertThatThrownBy(() -> LevelSources.level(file + "#x", null, null)).hasMessageContaining("must be a level number");
    assertThatThrownBy(() -> LevelSources.level("unfiltered/test/001.txt#1", root, null)).hasMessageContaining("no such file");
  }

  @Test
  void splitStoreAndUnknownSplit() {
    LevelStore s = LevelSources.split(TestData.boxoban().toString(), "unfiltered/test");
    assertThat(s.size()).isEqualTo(1000);
    assertThat(s.address(5)).isEqualTo("unfiltered/test/000.txt#5");
    assertThatThrownBy(() -> LevelSources.split(TestData.boxoban().toString(), "easy/train"))
        .isInstanceOf(UserError.class).hasMessageContaining("split 'easy/train' not found");
  }

  @Test
  void downloadFailsFastWithOneSentenceWhenOffline() {
    // Offline here: a connection error. (Online, this would download ~100 MB, so only run it when it fails fast.)
    try {
      Path got = LevelSources.download(tmp, Duration.ofSeconds(3));
      assertThat(got.resolve("unfiltered/test/000.txt")).exists();
    } catch (UserError e) {
      assertThat(e.getMessage()).startsWith("could not download the Boxoban levels from https://github.com/")
          .contains("--levels DIR").doesNotContain("\n");
    }
  }

  @Test
  void generatedFallbackIsCachedAndDeterministic() {
    String old = System.getProperty("speedrun.cache");
    System.setProperty("speedrun.cache", tmp.toString());
    try {
      LevelStore a = LevelSources.generated(3, 77);
      assertThat(a.size()).isEqualTo(3);
      assertThat(a.name()).isEqualTo("generated/seed-77");
      assertThat(tmp.resolve("generated/seed-77-n3/000.txt")).exists();
      Generator g = new Generator(Generator.Settings.BOXOBAN);
      for (int k = 0; k < 3; k++) assertThat(a.level(k)).isEqualTo(g.generate(77, k));
    } finally {
      if (old == null) System.clearProperty("speedrun.cache");
      else System.setProperty("speedrun.cache", old);
    }
  }
}
