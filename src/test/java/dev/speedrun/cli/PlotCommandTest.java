package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotCommandTest {
  private static void metrics(Path run, String... rows) throws Exception {
    Files.createDirectories(run);
    Files.writeString(run.resolve("metrics.jsonl"), String.join("\n", rows) + "\n");
  }

  @Test
  void drawsValidationSolveRateOfSeveralRunsAgainstTheClock(@TempDir Path dir) throws Exception {
    metrics(dir.resolve("a"),
        "{\"iteration\":1,\"global_step\":1000,\"time/wall_clock_s\":60,\"charts/solve_rate\":0.1}",
        "{\"iteration\":2,\"global_step\":2000,\"time/wall_clock_s\":120,\"charts/solve_rate\":0.2,\"val/solve_rate\":0.05}",
        "{\"iteration\":4,\"global_step\":4000,\"time/wall_clock_s\":240,\"val/solve_rate\":0.25}");
    metrics(dir.resolve("b"), "{\"iteration\":1,\"global_step\":1000,\"time/wall_clock_s\":30,\"val/solve_rate\":0.5}");
    Path png = dir.resolve("out/val.png");
    String[] r = EvalCommandTest.run("plot", dir.resolve("a").toString(), "fast=" + dir.resolve("b"), "--out", png.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).contains("a: 2 points of val/solve_rate").contains("fast: 1 points of val/solve_rate");
    BufferedImage img = ImageIO.read(png.toFile());
    assertThat(img.getWidth()).isGreaterThan(100);

    r = EvalCommandTest.run("plot", dir.resolve("a").toString(), "--metric", "charts/solve_rate", "--x", "steps", "--out", png.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).contains("a: 2 points of charts/solve_rate");

    r = EvalCommandTest.run("plot", dir.resolve("a").toString(), dir.resolve("b").toString(), "--metric", "val/solve_rate",
        "--metric", "charts/solve_rate", "--out", png.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).contains("a: 2 points of val/solve_rate").contains("b: 0 points of charts/solve_rate");
    assertThat(ImageIO.read(png.toFile()).getWidth()).isGreaterThan(img.getWidth());
  }

  @Test
  void badInputIsOneSentenceAndExitTwo(@TempDir Path dir) throws Exception {
    String[] r = EvalCommandTest.run("plot", dir.resolve("missing").toString(), "--out", dir.resolve("x.png").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("no such run directory").doesNotContain("Exception");

    metrics(dir.resolve("a"), "{\"iteration\":1,\"time/wall_clock_s\":60,\"charts/solve_rate\":0.1}");
    r = EvalCommandTest.run("plot", dir.resolve("a").toString(), "--metric", "val/nothing", "--out", dir.resolve("x.png").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("no run has metric val/nothing");
    assertThat(dir.resolve("x.png")).doesNotExist();

    r = EvalCommandTest.run("plot", dir.resolve("a").toString(), "--x", "hours", "--out", dir.resolve("x.png").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--x must be clock or steps");

    Files.writeString(dir.resolve("a/metrics.jsonl"), "not json\n");
    r = EvalCommandTest.run("plot", dir.resolve("a").toString(), "--out", dir.resolve("x.png").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("line 1: not a JSON object");
  }
}
