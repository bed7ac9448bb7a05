package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The levels, solve and generate commands, run through the CLI. */
class FoundationCommandsTest {
  @TempDir Path tmp;

  @Test
  void solveByAddressPrintsMovesThatReplayToSolved() throws Exception {
    String root = TestData.boxoban().toString();
    ReplayCommandTest.Run r = ReplayCommandTest.run("solve", "--levels", root, "--json", "unfiltered/test/000.txt#3", "unfiltered/test/000.txt#4");
    assertThat(r.code()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("solved").asInt()).isEqualTo(2);
    for (JsonNode lv : j.get("levels")) {
      Level l = dev.speedrun.sokoban.LevelSources.level(lv.get("level").asText(), root, null);
      assertThat(new Game(l).play(lv.get("moves").asText()).isSolved()).isTrue();
    }
  }

  @Test
  void solveReportsUnsolvableWithExitCodeOne() throws Exception {
    Path f = tmp.resolve("dead.xsb");
    Files.writeString(f, "#####\n#$  #\n# @.#\n#####\n");
    ReplayCommandTest.Run r = ReplayCommandTest.run("solve", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains("unsolvable");
  }

  @Test
  void generateIsDeterministicAndReadable() throws Exception {
    Path a = tmp.resolve("a.txt"), b = tmp.resolve("b.txt");
    assertThat(ReplayCommandTest.run("generate", "--count", "6", "--seed", "3", "--out", a.toString()).code()).isZero();
    assertThat(ReplayCommandTest.run("generate", "--count", "6", "--seed", "3", "--threads", "1", "--out", b.toString()).code()).isZero();
    assertThat(Files.readString(a)).isEqualTo(Files.readString(b));
    List<Formats.Entry> es = Formats.parseBoxoban(Files.readString(a), "a");
    assertThat(es).hasSize(6);
    assertThat(es.get(5).index()).isEqualTo(5);
    ReplayCommandTest.Run bad = ReplayCommandTest.run("generate", "--size", "4x4", "--boxes", "5");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).startsWith("error: --size 4x4 --boxes 5: 5 boxes do not fit");
  }

  @Test
  void levelsListsTheSplitsOfTheRoot() throws Exception {
    ReplayCommandTest.Run r = ReplayCommandTest.run("levels", "--levels", TestData.boxoban().toString(), "--json");
    assertThat(r.code()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("root").asText()).isEqualTo(TestData.boxoban().toAbsolutePath().normalize().toString());
    assertThat(j.get("splits").toString()).contains("unfiltered/test", "unfiltered/train");
    ReplayCommandTest.Run missing = ReplayCommandTest.run("levels", "--levels", tmp.resolve("none").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("no such directory");
  }
}
