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
  public enum XAxis {
    CLOCK, STEPS;

    /** The --x flag: clock or steps. */
    public static XAxis parse(String flag) {
      return switch (flag) {
        case "clock" -> CLOCK;
        case "steps" -> STEPS;
        default -> throw new UserError("--x must be clock or steps, not '" + flag + "'");
      };
    }
  }

  /** A run to draw and its legend label. */
  public record Run(String label, Path dir) {
    /** LABEL=DIR, or DIR labelled with its folder name. */
    public static Run parse(String s) {
      int eq = s.indexOf('=');
      Path dir = Path.of(eq >= 0 ? s.substring(eq + 1) : s);
      return new Run(eq >= 0 ? s.substring(0, eq) : dir.getFileName() != null ? dir.getFileName().toString() : s, dir);
    }
  }

  /** Rows of {@code metrics.jsonl} (or a kept run's {@code metrics.jsonl.gz}) under {@code dir}; a clear error when there is none. */
  static List<JsonNode> metrics(Path dir) {
    if (!Files.isDirectory(dir)) throw new UserError(dir + ": no such run directory");
    Path f = dir.resolve("metrics.jsonl");
    if (!Files.isRegularFile(f) && Files.isRegularFile(dir.resolve("metrics.jsonl.gz"))) f = dir.resolve("metrics.jsonl.gz"); // a kept run
    if (!Files.isRegularFile(f)) throw new UserError(dir + " has no metrics.jsonl (not a run directory, or no iteration finished yet)");
    return RunDir.readMetrics(f);
  }

  /** (x, metric) points of one run: x in minutes of training clock or millions of env steps. */
  static double[][] points(List<JsonNode> rows, String metric, XAxis x) {
    double[][] p = RunDir.series(rows, x == XAxis.CLOCK ? "time/wall_clock_s" : "global_step", metric);
    double scale = x == XAxis.CLOCK ? 1 / 60.0 : 1e-6;
    for (int i = 0; i < p[0].length; i++) p[0][i] *= scale;
    return p;
  }

  /** Writes the PNG, one panel per metric; returns the number of points drawn per metric and run. */
  public static int[][] write(Path png, List<Run> runs, List<String> metricKeys, XAxis x, String title) throws IOException {
    if (runs.isEmpty()) throw new UserError("plot: name at least one run directory");
    if (metricKeys.isEmpty()) throw new UserError("plot: name at least one --metric");
    List<List<JsonNode>> rows = new ArrayList<>();
    for (Run r : runs) rows.add(metrics(r.dir()));
    String xLabel = x == XAxis.CLOCK ? "training clock (minutes)" : "env steps (millions)";
    List<Panel> panels = new ArrayList<>();
    int[][] counts = new int[metricKeys.size()][runs.size()];
    for (int m = 0; m < metricKeys.size(); m++) {
      String metric = metricKeys.get(m);
      List<Series> series = new ArrayList<>();
      int total = 0;
      for (int i = 0; i < runs.size(); i++) {
        double[][] p = points(rows.get(i), metric, x);
        counts[m][i] = p[0].length;
        total += p[0].length;
        series.add(metric.startsWith("val/") ? Series.points(runs.get(i).label(), p[0], p[1])
            : Series.line(runs.get(i).label(), p[0], p[1]));
      }
      if (total == 0) throw new UserError("plot: no run has metric " + metric + " (e.g. val/solve_rate, charts/solve_rate, charts/episodic_return)");
      boolean rate = metric.endsWith("solve_rate");
      List<HLine> lines = rate ? List.of(new HLine("bar 0.70", 0.70)) : List.of();
      String t = title != null && metricKeys.size() == 1 ? title : (title != null ? title + ": " : "") + metric;
      panels.add(new Panel(t, xLabel, metric, series, lines, 0, rate ? 1 : 0, null));
    }
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    Chart.write(png, Math.min(2, panels.size()), panels);
    return counts;
  }
}
