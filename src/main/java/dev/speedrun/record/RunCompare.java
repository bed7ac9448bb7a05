package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs side by side at equal env steps (or equal training clock): for each mark, each metric's mean
 * over the run's rows whose x lies within +-window of the mark, and where the run stood on the other
 * axis. The table experiments are judged by ("ahead per step, level per minute"), as Markdown.
 */
public final class RunCompare {
  private RunCompare() {}

  /** The metrics shown by default: rolling training solve rate, return, and the validation checks. */
  public static final List<String> DEFAULT_METRICS = List.of("charts/solve_rate", "charts/episodic_return", "val/solve_rate");

  /**
   * One cell: where the run was on the other axis at the mark (minutes of clock, or millions of
   * steps; NaN past its end) and each metric's windowed mean (NaN where no row had it).
   */
  public record Cell(double other, double[] values) {}

  /** The table: marks (minutes or millions of steps) by runs. */
  public record Table(RunPlot.XAxis x, double[] marks, List<String> labels, List<String> metrics, Cell[][] cells) {
    /** Markdown: one row per mark, one column per run, the cell's figures joined by " / ". */
    public String markdown() {
      StringBuilder sb = new StringBuilder();
      String other = x == RunPlot.XAxis.STEPS ? "clock (min)" : "steps (M)";
      sb.append("cells: ").append(other);
      for (String m : metrics) sb.append(" / ").append(m);
      sb.append(x == RunPlot.XAxis.STEPS ? "  (means within +-window of each mark of env steps)"
          : "  (means within +-window of each mark of training clock)").append('\n').append('\n');
      sb.append(x == RunPlot.XAxis.STEPS ? "| steps |" : "| clock |");
      for (String l : labels) sb.append(' ').append(l).append(" |");
      sb.append('\n').append("|---:|");
      for (int i = 0; i < labels.size(); i++) sb.append("---|");
      sb.append('\n');
      for (int k = 0; k < marks.length; k++) {
        sb.append("| ").append(x == RunPlot.XAxis.STEPS ? num(marks[k]) + "M" : num(marks[k]) + " min").append(" |");
        for (int i = 0; i < labels.size(); i++) {
          Cell c = cells[k][i];
          sb.append(' ');
          if (Double.isNaN(c.other())) {
            sb.append('-');
          } else {
            sb.append(num(c.other()));
            for (int m = 0; m < metrics.size(); m++) sb.append(" / ").append(format(metrics.get(m), c.values()[m]));
          }
          sb.append(" |");
        }
        sb.append('\n');
      }
      return sb.toString();
    }
  }

  /** Rates as percentages with one decimal, other figures with three; "-" where there was no row. */
  static String format(String metric, double v) {
    if (Double.isNaN(v)) return "-";
    if (metric.endsWith("_rate")) return String.format(Locale.ROOT, "%.1f%%", 100 * v);
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static String num(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  /**
   * Compares {@code runs} on {@code metrics} at {@code marks} of axis {@code x} (minutes of training
   * clock or millions of steps); with no marks, every {@code step} up to the longest run (step 10M or
   * 15 minutes when not given); {@code window} defaults to half the spacing of the marks.
   */
  public static Table compare(List<RunPlot.Run> runs, List<String> metrics, RunPlot.XAxis x, double[] marks, Double step,
      Double window) {
    if (runs.isEmpty()) throw new UserError("compare: name at least one run directory");
    if (metrics.isEmpty()) throw new UserError("compare: name at least one --metric");
    List<List<JsonNode>> rows = new ArrayList<>();
    for (RunPlot.Run r : runs) rows.add(RunPlot.metrics(r.dir()));
    String xKey = x == RunPlot.XAxis.STEPS ? "global_step" : "time/wall_clock_s";
    String otherKey = x == RunPlot.XAxis.STEPS ? "time/wall_clock_s" : "global_step";
    double xScale = x == RunPlot.XAxis.STEPS ? 1e-6 : 1 / 60.0, otherScale = x == RunPlot.XAxis.STEPS ? 1 / 60.0 : 1e-6;
    if (marks == null || marks.length == 0) {
      double s = step != null ? step : x == RunPlot.XAxis.STEPS ? 10 : 15;
      if (!(s > 0) || Double.isInfinite(s)) throw new UserError("--every must be a positive number, got " + s);
      double end = 0;
      for (List<JsonNode> r : rows) {
        double[][] p = RunDir.series(r, xKey, xKey);
        if (p[0].length > 0) end = Math.max(end, p[0][p[0].length - 1] * xScale);
      }
      int n = (int) Math.floor(end / s + 1e-9);
      if (n < 1) throw new UserError("compare: the runs are shorter than one mark (" + num(s) + (x == RunPlot.XAxis.STEPS ? "M steps)" : " minutes)"));
      marks = new double[n];
      for (int k = 0; k < n; k++) marks[k] = (k + 1) * s;
    }
    for (double m : marks) if (!(m > 0) || Double.isInfinite(m)) throw new UserError("--at marks must be positive numbers, got " + m);
    double w;
    if (window != null) {
      w = window;
    } else if (marks.length > 1) {
      double gap = Double.POSITIVE_INFINITY;
      for (int k = 1; k < marks.length; k++) gap = Math.min(gap, Math.abs(marks[k] - marks[k - 1]));
      w = gap / 2;
    } else {
      w = marks[0] / 10;
    }
    if (!(w > 0) || Double.isInfinite(w)) throw new UserError("--window must be a positive number, got " + w);
    Cell[][] cells = new Cell[marks.length][runs.size()];
    boolean any = false;
    for (int i = 0; i < runs.size(); i++) {
      double[][] other = RunDir.series(rows.get(i), xKey, otherKey);
      double last = other[0].length == 0 ? 0 : other[0][other[0].length - 1] * xScale;
      List<double[][]> series = new ArrayList<>();
      for (String m : metrics) series.add(RunDir.series(rows.get(i), xKey, m));
      for (int k = 0; k < marks.length; k++) {
        double[] v = new double[metrics.size()];
        for (int m = 0; m < metrics.size(); m++) {
          v[m] = mean(series.get(m), xScale, marks[k], w);
          any |= !Double.isNaN(v[m]);
        }
        double o = marks[k] > last + w ? Double.NaN : interpolate(other, xScale, marks[k]) * otherScale;
        cells[k][i] = new Cell(o, v);
      }
    }
    if (!any) throw new UserError("compare: no run has any of " + String.join(", ", metrics) + " near the marks");
    List<String> labels = runs.stream().map(RunPlot.Run::label).toList();
    return new Table(x, marks, labels, List.copyOf(metrics), cells);
  }

  /**
   * Where each run first reached each value: the first row whose trailing mean of {@code metric}
   * (over the rows within the last {@code window} million steps, that row included) is at least the
   * value, as millions of steps and minutes of training clock ("-" if it never did). Steps to an
   * equal solve rate, and the minutes they cost, are what "ahead per step" and "ahead per minute"
   * mean for a variant.
   */
  public record Reach(String metric, double window, double[] values, List<String> labels, double[][] steps, double[][] minutes) {
    public String markdown() {
      StringBuilder sb = new StringBuilder();
      sb.append("cells: env steps (M) / training clock (min) when the mean of ").append(metric).append(" over the last ")
          .append(num(window)).append("M steps first reached the value\n\n| ").append(metric).append(" |");
      for (String l : labels) sb.append(' ').append(l).append(" |");
      sb.append("\n|---:|");
      for (int i = 0; i < labels.size(); i++) sb.append("---|");
      sb.append('\n');
      for (int k = 0; k < values.length; k++) {
        sb.append("| ").append(format(metric, values[k])).append(" |");
        for (int i = 0; i < labels.size(); i++) {
          if (Double.isNaN(steps[k][i])) sb.append(" - |");
          else sb.append(' ').append(String.format(Locale.ROOT, "%.1fM / %.0f min", steps[k][i], minutes[k][i])).append(" |");
        }
        sb.append('\n');
      }
      return sb.toString();
    }
  }

  /** {@link Reach} for {@code runs}; {@code window} in millions of steps (default 2). */
  public static Reach reach(List<RunPlot.Run> runs, String metric, double[] values, Double window) {
    if (runs.isEmpty()) throw new UserError("compare: name at least one run directory");
    if (values.length == 0) throw new UserError("compare: --reach needs at least one value");
    for (double v : values) if (!Double.isFinite(v)) throw new UserError("--reach values must be numbers, got " + v);
    double w = window != null ? window : 2;
    if (!(w > 0) || Double.isInfinite(w)) throw new UserError("--window must be a positive number, got " + w);
    double[][] steps = new double[values.length][runs.size()], minutes = new double[values.length][runs.size()];
    boolean any = false;
    for (int i = 0; i < runs.size(); i++) {
      List<JsonNode> rows = RunPlot.metrics(runs.get(i).dir());
      double[][] p = RunDir.series(rows, "global_step", metric), clock = RunDir.series(rows, "global_step", "time/wall_clock_s");
      any |= p[0].length > 0;
      for (int k = 0; k < values.length; k++) {
        steps[k][i] = Double.NaN;
        minutes[k][i] = Double.NaN;
        double sum = 0;
        int from = 0;
        for (int j = 0; j < p[0].length; j++) {
          sum += p[1][j];
          while (p[0][from] * 1e-6 <= p[0][j] * 1e-6 - w) sum -= p[1][from++];
          if (sum / (j - from + 1) >= values[k]) {
            steps[k][i] = p[0][j] * 1e-6;
            minutes[k][i] = interpolate(clock, 1e-6, steps[k][i]) / 60;
            break;
          }
        }
      }
    }
    if (!any) throw new UserError("compare: no run has " + metric);
    return new Reach(metric, w, values.clone(), runs.stream().map(RunPlot.Run::label).toList(), steps, minutes);
  }

  /** Mean of the points whose scaled x is within +-w of mark; NaN if none. */
  static double mean(double[][] p, double xScale, double mark, double w) {
    double sum = 0;
    int n = 0;
    for (int j = 0; j < p[0].length; j++) {
      if (Math.abs(p[0][j] * xScale - mark) <= w) {
        sum += p[1][j];
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /** The other axis at scaled x = mark, linearly between the rows around it (clamped at the ends). */
  static double interpolate(double[][] p, double xScale, double mark) {
    int n = p[0].length;
    if (n == 0) return Double.NaN;
    if (mark <= p[0][0] * xScale) return p[1][0];
    for (int j = 1; j < n; j++) {
      double x1 = p[0][j] * xScale;
      if (mark <= x1) {
        double x0 = p[0][j - 1] * xScale;
        double f = x1 == x0 ? 1 : (mark - x0) / (x1 - x0);
        return p[1][j - 1] + f * (p[1][j] - p[1][j - 1]);
      }
    }
    return p[1][n - 1];
  }
}
