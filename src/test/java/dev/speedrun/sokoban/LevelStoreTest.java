package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LevelStoreTest {
  @TempDir Path tmp;

  @Test
  void storeMatchesTheGeneralParserLevelByLevel() throws Exception {
    Path dir = TestData.boxoban().resolve("unfiltered/valid");
    LevelStore s = LevelStore.load(dir, "unfiltered/valid", null);
    assertThat(s.size()).isEqualTo(100_000);
    assertThat(s.fileCount()).isEqualTo(100);
    // Files 000 and 099 through the slow, general parser.
    for (String f : List.of("000.txt", "099.txt")) {
      List<Formats.Entry> es = Formats.parseBoxoban(Files.readString(dir.resolve(f)), f);
      for (Formats.Entry e : es) {
        int k = s.indexOf(f, e.index());
        assertThat(k).isNotNegative();
        assertThat(s.level(k)).isEqualTo(e.level());
        assertThat(s.level(k).toXsb()).isEqualTo(e.rows());
        assertThat(s.address(k)).isEqualTo("unfiltered/valid/" + f + "#" + e.index());
      }
    }
    assertThat(s.address(0)).isEqualTo("unfiltered/valid/000.txt#0");
    assertThat(s.address(99_999)).isEqualTo("unfiltered/valid/099.txt#999");
    assertThat(s.fileOf(1000)).isEqualTo(1);
    assertThat(s.indexOf("100.txt", 0)).isEqualTo(-1);
    assertThat(s.indexOf("000.txt", 1000)).isEqualTo(-1);
  }

  @Test
  void cacheRoundTripGivesTheSameStoreAndIsUsedWhenPresent() throws Exception {
    Path dir = tmp.resolve("split");
    Files.createDirectories(dir);
    Path src = TestData.boxoban().resolve("unfiltered/test/000.txt");
    Files.copy(src, dir.resolve("a.txt"));
    Files.writeString(dir.resolve("b.txt"), "; 7\n#####\n#@$.#\n#####\n".replace("#####\n#@$.#\n#####", pad()));
    Path cache = tmp.resolve("cache");
    LevelStore first = LevelStore.load(dir, "x/y", cache);
    assertThat(first.size()).isEqualTo(1001);
    try (var files = Files.list(cache)) {
      assertThat(files.toList()).hasSize(1);
    }
    LevelStore second = LevelStore.load(dir, "x/y", cache);
    assertThat(second.size()).isEqualTo(first.size());
    for (int k = 0; k < first.size(); k++) {
      assertThat(second.level(k)).isEqualTo(first.level(k));
      assertThat(second.address(k)).isEqualTo(first.address(k));
    }
    assertThat(second.address(1000)).isEqualTo("x/y/b.txt#7");
    // A damaged cache file is rebuilt from the sources.
    Path c;
    try (var files = Files.list(cache)) {
      c = files.findFirst().orElseThrow();
    }
    Files.write(c, new byte[] {1, 2, 3});
    assertThat(LevelStore.load(dir, "x/y", cache).level(1000)).isEqualTo(first.level(1000));
  }

  /** A 10x10 level with one box. */
  private static String pad() {
    return "##########\n#@$.     #\n#        #\n#        #\n#        #\n#        #\n#        #\n#        #\n#        #\n##########";
  }

  @Test
  void crlfAndCombinedGlyphsGoThroughTheGeneralParser() throws Exception {
    Path dir = tmp.resolve("s");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("0.txt"), ("; 0\n" + pad() + "\n\n; 1\n" + pad().replace("@$.", "+$ ") + "\n").replace("\n", "\r\n"));
    LevelStore s = LevelStore.load(dir, "s", null);
    assertThat(s.size()).isEqualTo(2);
    assertThat(s.level(1).cell(1 * 10 + 1)).isEqualTo((byte) (Level.PLAYER | Level.GOAL));
  }

  private String errorOf(String text) throws Exception {
    Path dir = Files.createTempDirectory(tmp, "bad");
    Files.writeString(dir.resolve("bad.txt"), text);
    try {
      LevelStore.load(dir, "bad", null);
    } catch (UserError e) {
      return e.getMessage();
    }
    throw new AssertionError("no error for:\n" + text);
  }

  @Test
  void everyFaultNamesFileLineAndFault() throws Exception {
    String ok = "; 0\n" + pad() + "\n\n";
    String f = "bad.txt";
    assertThat(errorOf(ok + "; 1\n" + pad().replaceFirst("#        #", "#         #") + "\n"))
        .contains(f).contains("line 16").contains("row has 11 cells, expected 10");
    assertThat(errorOf(ok + "; 1\n" + pad().replace("#@$.", "#@$x") + "\n"))
        .contains(f).contains("line 15 column 4").contains("unknown character 'x'");
    assertThat(errorOf(ok + "; 1\n" + pad().replace("#@$.", "# $.") + "\n"))
        .contains(f).contains("line 14").contains("no player");
    assertThat(errorOf(ok + "; 1\n" + pad().replace("#@$.  ", "#@$. @") + "\n"))
        .contains(f).contains("line 14").contains("2 players");
    assertThat(errorOf(ok + "; 1\n" + pad().replace("#@$.  ", "#@$.$ ") + "\n"))
        .contains(f).contains("line 14").contains("2 boxes but 1 goals");
    assertThat(errorOf("")).contains(f).contains("empty file");
    assertThat(errorOf("\n\n")).contains(f).contains("empty file");
    assertThat(errorOf("; x\n" + pad())).contains(f).contains("line 1").contains("no level number");
    assertThat(errorOf(pad())).contains(f).contains("line 1").contains("expected a '; N' header");
  }

  @Test
  void levelsOfDifferentSizesInOneSplitAreAnError() throws Exception {
    Path dir = tmp.resolve("mixed");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("a.txt"), "; 0\n" + pad() + "\n");
    Files.writeString(dir.resolve("b.txt"), "; 0\n#####\n#@$.#\n#####\n");
    assertThatThrownBy(() -> LevelStore.load(dir, "mixed", null)).isInstanceOf(UserError.class)
        .hasMessageContaining("b.txt").hasMessageContaining("5x3");
  }

  @Test
  void missingOrEmptyDirectoryIsAnError() throws Exception {
    assertThatThrownBy(() -> LevelStore.load(tmp.resolve("nope"), "n", null)).isInstanceOf(UserError.class)
        .hasMessageContaining("no such level directory");
    assertThatThrownBy(() -> LevelStore.load(tmp, "n", null)).isInstanceOf(UserError.class)
        .hasMessageContaining("no .txt level files");
  }

  @Test
  void ofListKeepsLevelsAndNumbersThem() {
    Level a = Formats.parseXsb(pad(), "a");
    LevelStore s = LevelStore.of("gen", "g.txt", List.of(a, a));
    assertThat(s.size()).isEqualTo(2);
    assertThat(s.address(1)).isEqualTo("gen/g.txt#1");
    byte[] dst = new byte[100];
    s.copyCells(1, dst, 0);
    assertThat(new Level(10, 10, dst)).isEqualTo(a);
  }
}
