package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareCommandTest {
  /** A run whose row i (1..n) is at i M steps and i minutes, solve rate i/100, return -1 + i/100, a val check every 2nd row. */
  private static Path run(Path dir, String name, int n, double clockScale) throws Exception {
    Path r = dir.resolve(name);
    Files.createDirectories(r);
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      sb.append("{\"iteration\":").append(i).append(",\"global_step\":").append(i * 1_000_000L)
          .append(",\"time/wall_clock_s\":").append(60.0 * i * clockScale)
          .append(",\"charts/solve_rate\":").append(i / 100.0).append(",\"charts/episodic_return\":").append(-1 + i / 100.0);
      if (i % 2 == 0) sb.append(",\"val/solve_rate\":").append(i / 200.0);
      sb.append("}\n");
    }
    Files.writeString(r.resolve("metrics.jsonl"), sb.toString());
    return r;
  }

  @Test
  void tabulatesRunsAtEqualStepsWithTheClockTheyNeeded(@TempDir Path dir) throws Exception {
    Path a = run(dir, "a", 30, 1), b = run(dir, "b", 12, 2);
    String[] r = EvalCommandTest.run("compare", a.toString(), "slow=" + b, "--at", "10,20", "--window", "1");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    // a at 10M: rows 9, 10, 11 -> solve 10%, return -0.900, val only row 10 -> 5%; 10 minutes of clock.
    assertThat(r[1]).contains("| steps | a | slow |")
        .contains("| 10M | 10 / 10.0% / -0.900 / 5.0% | 20 / 10.0% / -0.900 / 5.0% |")
        // b ended at 12M: past its end plus the window it has no cell.
        .contains("| 20M | 20 / 20.0% / -0.800 / 10.0% | - |");
  }

  @Test
  void marksEveryStepUpToTheLongestRunAndByClock(@TempDir Path dir) throws Exception {
    Path a = run(dir, "a", 30, 1), b = run(dir, "b", 12, 2);
    String[] r = EvalCommandTest.run("compare", a.toString(), b.toString(), "--x", "clock", "--every", "12", "--metric", "charts/solve_rate");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    // Marks 12 and 24 minutes (b lasted 24); window 6: a's rows 6..18 (solve 12%), b's rows 3..9 (6%).
    assertThat(r[1]).contains("| clock | a | b |").contains("| 12 min | 12 / 12.0% | 6 / 6.0% |")
        .contains("| 24 min | 24 / 24.0% | 12 / 10.5% |");
    assertThat(r[1].lines().filter(l -> l.startsWith("| ") && l.contains(" min |")).count()).isEqualTo(2);
  }

  /** A kept run (./speedrun keep) has its metrics gzipped; it compares as the run it was kept from. */
  @Test
  void readsAKeptRunsGzippedMetrics(@TempDir Path dir) throws Exception {
    Path a = run(dir, "a", 30, 1);
    Path kept = Files.createDirectories(dir.resolve("kept/a"));
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(kept.resolve("metrics.jsonl.gz")))) {
      out.write(Files.readAllBytes(a.resolve("metrics.jsonl")));
    }
    String[] plain = EvalCommandTest.run("compare", "a=" + a, "--at", "10,20", "--window", "1");
    String[] gz = EvalCommandTest.run("compare", "a=" + kept, "--at", "10,20", "--window", "1");
    assertThat(gz[0]).as(gz[2]).isEqualTo("0");
    assertThat(gz[1]).isEqualTo(plain[1]).contains("| 10M | 10 / 10.0% / -0.900 / 5.0% |");
  }

  @Test
  void reachGivesTheFirstStepsAndClockAtWhichTheTrailingMeanGotThere(@TempDir Path dir) throws Exception {
    Path a = run(dir, "a", 30, 1), b = run(dir, "b", 12, 2);
    String[] r = EvalCommandTest.run("compare", a.toString(), "slow=" + b, "--reach", "0.05,0.11,0.5", "--window", "2");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    // Trailing mean over (x - 2M, x]: rows i-1 and i, mean (2i - 1)/200. 5% first at i = 6 (5.5%);
    // 11% at i = 12 (11.5%): b ends there, at 24 minutes; 50% never.
    assertThat(r[1]).contains("| charts/solve_rate | a | slow |")
        .contains("| 5.0% | 6.0M / 6 min | 6.0M / 12 min |")
        .contains("| 11.0% | 12.0M / 12 min | 12.0M / 24 min |")
        .contains("| 50.0% | - | - |");
    r = EvalCommandTest.run("compare", a.toString(), "--reach", "-0.9", "--metric", "charts/episodic_return", "--window", "1");
    assertThat(r[1]).contains("| -0.900 | 10.0M / 10 min |");
    r = EvalCommandTest.run("compare", a.toString(), "--reach", "0.1", "--metric", "val/nothing");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("no run has val/nothing");
  }

  /** --reach alone prints its table only; with --at as well, both tables (one window for both). */
  @Test
  void reachWithMarksPrintsBothTables(@TempDir Path dir) throws Exception {
    Path a = run(dir, "a", 30, 1);
    String[] only = EvalCommandTest.run("compare", a.toString(), "--reach", "0.05", "--window", "1");
    assertThat(only[1]).contains("| 5.0% | 6.0M / 6 min |").doesNotContain("| steps |");
    String[] both = EvalCommandTest.run("compare", a.toString(), "--reach", "0.05", "--at", "10", "--window", "1");
    assertThat(both[0]).as(both[2]).isEqualTo("0");
    assertThat(both[1]).contains("| 5.0% | 6.0M / 6 min |")
        .contains("| steps | a |").contains("| 10M | 10 / 10.0% / -0.900 / 5.0% |");
    assertThat(both[1].indexOf("| charts/solve_rate | a |")).isLessThan(both[1].indexOf("| steps | a |"));
  }

  @Test
  void badInputIsOneSentenceAndExitTwo(@TempDir Path dir) throws Exception {
    String[] r = EvalCommandTest.run("compare", dir.resolve("missing").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("no such run directory").doesNotContain("Exception");
    Path a = run(dir, "a", 5, 1);
    r = EvalCommandTest.run("compare", a.toString(), "--metric", "val/nothing", "--at", "2");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("no run has any of val/nothing");
    r = EvalCommandTest.run("compare", a.toString(), "--at", "0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--at marks must be positive");
    r = EvalCommandTest.run("compare", a.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("shorter than one mark");
    r = EvalCommandTest.run("compare", a.toString(), "--at", "x");
    assertThat(r[0]).isEqualTo("2");
  }
}
