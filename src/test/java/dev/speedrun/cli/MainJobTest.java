package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.eval.LevelSet;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainJobTest {
  @TempDir Path tmp;

  @Test
  void generatedStandInIsBoxobanShapedDisjointAndWrittenOnce() throws Exception {
    Map<String, Integer> files = Map.of("unfiltered/train", 2, "unfiltered/valid", 1, MainJob.GENERATED_TEST, 1);
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
    Path root = MainJob.generatedLevels(tmp.resolve("gen"), files, 5, quiet);
    Set<String> boards = new HashSet<>();
    int total = 0;
    for (String split : List.of("unfiltered/train", "unfiltered/valid", MainJob.GENERATED_TEST)) {
      for (int f = 0; f < files.get(split); f++) {
        Path file = root.resolve(split).resolve(String.format("%03d.txt", f));
        List<Formats.Entry> entries = Formats.parseBoxoban(Files.readString(file), file.toString());
        assertThat(entries).hasSize(5);
        for (Formats.Entry e : entries) {
          Level l = e.level();
          assertThat(l.width()).isEqualTo(10);
          assertThat(l.boxCount()).isEqualTo(4);
          boards.add(e.rows());
          total++;
        }
      }
    }
    // Each file comes from its own seed: no board repeats across splits.
    assertThat(boards).hasSize(total);
    // A second call finds the files and writes nothing.
    // The scored split loads as a level set (not claiming to be the official test file).
    LevelSet scored = LevelSet.load(root, MainJob.GENERATED_TEST);
    assertThat(scored.size()).isEqualTo(5);
    assertThat(scored.official).isFalse();
    Path test = root.resolve(MainJob.GENERATED_TEST + "/000.txt");
    long before = Files.getLastModifiedTime(test).toMillis();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    MainJob.generatedLevels(tmp.resolve("gen"), files, 5, new PrintStream(out));
    assertThat(out.toString()).isEmpty();
    assertThat(Files.getLastModifiedTime(test).toMillis()).isEqualTo(before);
  }

  @Test
  void badThreadCountIsAUserError() {
    assertThatThrownBy(() -> MainJob.run(42, null, tmp.resolve("run"), 0, System.out))
        .isInstanceOf(UserError.class).hasMessageContaining("--threads");
  }
}
