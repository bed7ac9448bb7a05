package dev.speedrun.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartTest {
  @Test
  void ticksAreRoundAndInside() {
    assertThat(Chart.ticks(0, 1)).containsExactly(new double[] {0, 0.2, 0.4, 0.6, 0.8, 1}, org.assertj.core.api.Assertions.within(1e-12));
    assertThat(Chart.ticks(-0.3, 10.2)).containsExactly(0, 2, 4, 6, 8, 10);
    double[] t = Chart.ticks(3, 3.5);
    assertThat(t.length).isBetween(3, 7);
    for (double v : t) assertThat(v).isBetween(3.0, 3.5);
    assertThat(Chart.num(0.25)).isEqualTo("0.25");
    assertThat(Chart.num(1500)).isEqualTo("1500");
    assertThat(Chart.num(2e-5)).isEqualTo("2.0e-05");
  }

  @Test
  void drawsSeriesInTheirColoursOnAWhiteCanvas(@TempDir Path tmp) throws Exception {
    Path f = tmp.resolve("c.png");
    Chart.write(f, 2, List.of(
        new Chart.Panel("a", "x", "y", List.of(Chart.Series.line("s", new double[] {0, 1, 2}, new double[] {0, 1, 0}))),
        new Chart.Panel("empty", "x", "y", List.of())));
    BufferedImage img = ImageIO.read(f.toFile());
    assertThat(img.getWidth()).isEqualTo(2 * 560);
    assertThat(img.getHeight()).isEqualTo(360);
    assertThat(img.getRGB(2, 2) & 0xffffff).isEqualTo(0xffffff);
    int blue = 0;
    for (int x = 0; x < 560; x++) for (int y = 0; y < 360; y++) if ((img.getRGB(x, y) & 0xffffff) == 0x1f77b4) blue++;
    assertThat(blue).as("pixels of the first series' colour").isGreaterThan(200);
  }
}
