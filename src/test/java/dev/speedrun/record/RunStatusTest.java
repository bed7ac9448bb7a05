package dev.speedrun.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunStatusTest {
  /** A run of 10 iterations of 1,000 steps, 20 s of clock each (50 steps/s), validated at iterations 2, 4 and 6. */
  static Path fakeRun(Path dir, int upTo) throws Exception {
    Files.createDirectories(dir.resolve("checkpoints/it-000004"));
    Files.writeString(dir.resolve("run.json"), "{\"seed\": 43, \"threads\": 2, \"overridden\": true, \"overrides\": {\"hidden\": \"64\"},"
        + " \"recipe\": {\"numEnvs\": 10, \"horizon\": 100, \"totalSteps\": 9500, \"stopValSolveRate\": 0.78}}");
    StringBuilder m = new StringBuilder();
    double[] val = {0, 0, 0.1, 0, 0.3, 0, 0.2};
    for (int i = 1; i <= upTo; i++) {
      m.append(String.format("{\"iteration\": %d, \"global_step\": %d, \"time/wall_clock_s\": %d, \"charts/solve_rate\": %.2f%s}%n", i,
          1000 * i, 20 * i, i / 100.0, i < val.length && val[i] > 0 ? ", \"val/solve_rate\": " + val[i] : ""));
    }
    Files.writeString(dir.resolve("metrics.jsonl"), m);
    Files.writeString(dir.resolve("log.txt"), "speedrun train\n");
    Files.writeString(dir.resolve("checkpoints/latest"), "it-000004\n");
    return dir;
  }

  @Test
  void trainingRunShowsProgressPaceValidationAndCheckpoint(@TempDir Path tmp) throws Exception {
    RunStatus s = RunStatus.read(fakeRun(tmp.resolve("r"), 6));
    assertThat(s.state()).isEqualTo("training");
    assertThat(s.iteration()).isEqualTo(6);
    assertThat(s.iterations()).isEqualTo(10); // 9,500 steps in iterations of 1,000: the last one is whole
    assertThat(s.steps()).isEqualTo(6000);
    assertThat(s.clockSeconds()).isEqualTo(120);
    assertThat(s.pace()).isEqualTo(50.0); // the whole run is inside the 10-minute window
    assertThat(s.vals()).extracting(v -> v[1]).containsExactly(0.1, 0.3, 0.2);
    assertThat(s.checkpoint()).isEqualTo("checkpoints/it-000004");
    String d = s.describe();
    assertThat(d).contains("training (log written").contains("seed 43, overridden recipe {\"hidden\":\"64\"}")
        .contains("iteration 6 / 10, 0.0M / 0M steps").contains("training clock 0:02:00")
        .contains("pace 50 steps/s").contains("0:01:10 of clock") // 3,500 steps left at 50/s
        .contains("validation 0.2000 at 0.0M (best 0.3000 at 0.0M)").contains("stops at 0.78")
        .contains("latest checkpoint checkpoints/it-000004");
  }

  /** The latest checkpoint's machine is shown, and a vector width other than this machine's is flagged before a resume is tried. */
  @Test
  void checkpointMachineIsShownAndAnotherVectorWidthFlagged(@TempDir Path tmp) throws Exception {
    Path r = fakeRun(tmp.resolve("r"), 6);
    Path meta = r.resolve("checkpoints/it-000004/meta.json");
    int here = dev.speedrun.rl.RunInfo.vectorBits(), other = here == 512 ? 256 : 512;
    Files.writeString(meta, "{\"iteration\": 4, \"vector_bits\": " + here + ", \"machine\": \"Test CPU, 2 cores, " + here + "-bit vectors\"}");
    RunStatus same = RunStatus.read(r);
    assertThat(same.checkpointVectorBits()).isEqualTo(here);
    assertThat(same.describe()).contains("latest checkpoint checkpoints/it-000004, written on Test CPU, 2 cores, " + here + "-bit vectors\n")
        .doesNotContain("refuses");
    Files.writeString(meta, "{\"iteration\": 4, \"vector_bits\": " + other + ", \"machine\": \"Zen 4, 2 cores, " + other + "-bit vectors\"}");
    assertThat(RunStatus.read(r).describe()).contains("written on Zen 4, 2 cores, " + other + "-bit vectors",
        "this machine has " + here + "-bit vectors, not " + other + ": train --resume refuses here without --allow-vector-change");
    Files.writeString(meta, "{\"iteration\": 4}"); // written before checkpoints named their machine
    assertThat(RunStatus.read(r).describe()).contains("latest checkpoint checkpoints/it-000004\n").doesNotContain("written on");
  }

  @Test
  void paceCountsOnlyTheLastTenMinutesOfClock(@TempDir Path tmp) throws Exception {
    Path r = fakeRun(tmp.resolve("r"), 2);
    StringBuilder m = new StringBuilder(Files.readString(r.resolve("metrics.jsonl")));
    // 1,000 s later (a slow stretch), then 2,000 steps per 100 s of clock
    for (int i = 0; i <= 10; i++) {
      m.append(String.format("{\"iteration\": %d, \"global_step\": %d, \"time/wall_clock_s\": %d}%n", 3 + i, 3000 + 2000 * i, 1040 + 100 * i));
    }
    Files.writeString(r.resolve("metrics.jsonl"), m);
    assertThat(RunStatus.read(r).pace()).isEqualTo(20.0);
  }

  @Test
  void stoppedFinishedKeptAndScored(@TempDir Path tmp) throws Exception {
    Path r = fakeRun(tmp.resolve("r"), 6);
    Files.setLastModifiedTime(r.resolve("log.txt"), FileTime.from(Instant.now().minusSeconds(3 * 3600 + 5)));
    RunStatus stopped = RunStatus.read(r);
    assertThat(stopped.state()).isEqualTo("stopped");
    assertThat(stopped.describe()).contains("stopped 3:00:0").contains("./speedrun train --resume " + r);

    Path k = fakeRun(tmp.resolve("k"), 6);
    try (var out = new GZIPOutputStream(Files.newOutputStream(k.resolve("metrics.jsonl.gz")))) {
      out.write(Files.readAllBytes(k.resolve("metrics.jsonl")));
    }
    Files.delete(k.resolve("metrics.jsonl"));
    Files.move(k.resolve("log.txt"), k.resolve("log.txt.gz"));
    RunStatus kept = RunStatus.read(k);
    assertThat(kept.state()).isEqualTo("kept");
    assertThat(kept.steps()).isEqualTo(6000);
    assertThat(kept.describe()).contains("./speedrun keep --restore " + k);

    Files.writeString(r.resolve("summary.json"), "{\"train_seconds\": 119.5, \"steps\": 6000}");
    Files.writeString(r.resolve("eval.json"), "{\"pass_at_1\": 0.75, \"ci95_bootstrap\": {\"lo\": 0.72, \"hi\": 0.78}}");
    RunStatus done = RunStatus.read(r);
    assertThat(done.state()).isEqualTo("finished");
    assertThat(done.clockSeconds()).isEqualTo(119.5);
    assertThat(done.describe()).contains("finished").doesNotContain("pace")
        .contains("eval.json: pass@1 0.7500, lower 95% bootstrap CI 0.7200 (above the bar)");
  }

  @Test
  void notARunIsOneSentenceAndPrintsNothing(@TempDir Path tmp) throws Exception {
    assertThatThrownBy(() -> RunStatus.read(tmp.resolve("nope"))).isInstanceOf(UserError.class).hasMessageContaining("no such run directory");
    fakeRun(tmp.resolve("ok"), 3);
    var cl = Main.commandLine();
    StringWriter out = new StringWriter(), err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute("status", tmp.resolve("ok").toString(), tmp.toString());
    assertThat(code).isNotZero();
    assertThat(err.toString()).contains("is not a run directory (no run.json)").doesNotContain("Exception");
    assertThat(out.toString()).isEmpty();
    code = cl.execute("status", tmp.resolve("ok").toString());
    assertThat(code).isZero();
    assertThat(out.toString()).contains("iteration 3 / 10");
  }
}
