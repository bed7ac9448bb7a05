package dev.speedrun.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalReportTest {
  static EvalReport report(int[] solved, int samples) {
    List<EvalReport.LevelResult> lv = new java.util.ArrayList<>();
    for (int i = 0; i < solved.length; i++) {
      int[] steps = new int[samples];
      java.util.Arrays.fill(steps, solved[i] > 0 ? 10 + i : 120);
      lv.add(new EvalReport.LevelResult("x/000.txt#" + i, "%064x".formatted(i), solved[i], steps));
    }
    return new EvalReport("x", false, samples, samples == 1 ? 0 : 1.0, samples == 1 ? 0 : 7, 2, 1.5, "ck", "ab",
        List.of(new LevelSet.FileHash("x/000.txt", "cd", solved.length)), "ef", List.copyOf(lv));
  }

  @Test
  void figuresComeFromThePerLevelResults() {
    EvalReport r = report(new int[] {1, 0, 1, 1}, 1);
    assertThat(r.passAt1()).isEqualTo(0.75);
    assertThat(r.wilson()).isEqualTo(Intervals.wilson(3, 4));
    assertThat(r.bootstrap()).isEqualTo(Intervals.bootstrap(new double[] {1, 0, 1, 1}));
    EvalReport k = report(new int[] {2, 0, 1, 4}, 4);
    assertThat(k.passAt1()).isEqualTo((0.5 + 0 + 0.25 + 1) / 4);
    assertThat(k.passAtK()).isEqualTo(0.75);
    assertThat(k.wilson()).isNull();
  }

  @Test
  void jsonRoundTrips(@TempDir Path dir) throws Exception {
    for (int samples : new int[] {1, 4}) {
      EvalReport r = report(samples == 1 ? new int[] {1, 0, 1} : new int[] {3, 0, 4}, samples);
      Path f = dir.resolve("eval" + samples + ".json");
      r.write(f);
      EvalReport.Stored s = EvalReport.read(f);
      assertThat(s.report().levels()).usingRecursiveFieldByFieldElementComparator().isEqualTo(r.levels());
      assertThat(s.report().levelFiles()).isEqualTo(r.levelFiles());
      assertThat(s.report().samples()).isEqualTo(samples);
      assertThat(s.passAt1()).isEqualTo(r.passAt1());
      assertThat(s.bootstrapLo()).isEqualTo(r.bootstrap().lo());
      assertThat(s.nLevels()).isEqualTo(3);
      assertThat(s.report().toJsonString()).isEqualTo(r.toJsonString());
    }
  }

  @Test
  void malformedJsonIsAUserError(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("bad.json");
    Files.writeString(f, "{\"split\": \"x\"");
    assertThatThrownBy(() -> EvalReport.read(f)).isInstanceOf(UserError.class).hasMessageContaining("bad.json");
    Files.writeString(f, "{\"split\": \"x\", \"samples_per_level\": 1, \"level_files\": [], \"levels\": [{\"solved\": 1}]}");
    assertThatThrownBy(() -> EvalReport.read(f)).isInstanceOf(UserError.class).hasMessageContaining("levels[0]");
  }
}
