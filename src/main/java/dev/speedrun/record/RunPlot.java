package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import dev.speedrun.record.Chart.HLine;
import dev.speedrun.record.Chart.Panel;
import dev.speedrun.record.Chart.Series;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./speedrun plot}: one metric of several runs against the training clock or env steps, read
 * from each run's {@code metrics.jsonl} (finished or still running; a run without metrics yet is an
 * error, as is a metric no run has). The README's "validation solve rate against wall clock" figure
 * is drawn with it.
 */
public final class RunPlot {
  private RunPlot() {}

  /** X axis: training clock in minutes, or env steps in millions. */
  public enum XAxis { CLOCK, STEPS }

  /** A run to draw and its legend label. */
  public record Run(String label, Path dir) {}

  /** Rows of {@code metrics.jsonl} under {@code dir}; a clear error when there is none. */
  static List<JsonNode> metrics(Path dir) {
    if (!Files.isDirectory(dir)) throw new UserError(dir + ": no such run directory");
    Path f = dir.resolve("metrics.jsonl");
    if (!Files.isRegularFile(f)) throw new UserError(dir + " has no metrics.jsonl (not a run directory, or no iteration finished yet)");
    return RunDir.readMetrics(f);
  }

  /** (x, metric) points of one run: x in minutes of training clock or millions of env steps. */
  static double[][] points(List<JsonNode> rows, String metric, XAxis x) {
    String xKey = x == XAxis.CLOCK ? "time/wall_clock_s" : "global_step";
    double scale = x == XAxis.CLOCK ? 1 / 60.0 : 1e-6;
    List<double[]> pts = new ArrayList<>();
    for (JsonNode r : rows) {
      JsonNode t = r.get(xKey), v = r.get(metric);
      if (t != null && t.isNumber() && v != null && v.isNumber()) pts.add(new double[] {t.asDouble() * scale, v.asDouble()});
    }
    double[][] out = new double[2][pts.size()];
    for (int i = 0; i < pts.size(); i++) {
      out[0][i] = pts.get(i)[0];
      out[1][i] = pts.get(i)[1];
    }
    return out;
  }

  /** Writes the PNG; returns the number of points drawn per run. */
  public static int[] write(Path png, List<Run> runs, String metric, XAxis x, String title) throws IOException {
    if (runs.isEmpty()) throw new UserError("plot: name at least one run directory");
    List<Series> series = new ArrayList<>();
    int[] counts = new int[runs.size()];
    for (int i = 0; i < runs.size(); i++) {
      double[][] p = points(metrics(runs.get(i).dir()), metric, x);
      counts[i] = p[0].length;
      series.add(metric.startsWith("val/") ? Series.points(runs.get(i).label(), p[0], p[1])
          : Series.line(runs.get(i).label(), p[0], p[1]));
    }
    if (java.util.Arrays.stream(counts).sum() == 0) throw new UserError("plot: no run has metric " + metric + " (e.g. val/solve_rate, charts/solve_rate, charts/episodic_return)");
    boolean rate = metric.endsWith("solve_rate");
    List<HLine> lines = rate ? List.of(new HLine("bar 0.70", 0.70)) : List.of();
    String xLabel = x == XAxis.CLOCK ? "training clock (minutes)" : "env steps (millions)";
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    Chart.write(png, 1, List.of(new Panel(title != null ? title : metric, xLabel, metric, series, lines, 0, rate ? 1 : 0, null)));
    return counts;
  }
}
