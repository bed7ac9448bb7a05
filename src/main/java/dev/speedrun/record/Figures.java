package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Intervals.Interval;
import dev.speedrun.record.Chart.HLine;
import dev.speedrun.record.Chart.Panel;
import dev.speedrun.record.Chart.Series;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** The PNG figures of a record and of the leaderboard. */
final class Figures {
  private Figures() {}

  static final String[][] LOSSES = {
    {"losses/policy_loss", "policy loss"}, {"losses/value_loss", "value loss"},
    {"losses/entropy", "entropy"}, {"losses/approx_kl", "approx KL"}};

  /** figures/training.png, figures/losses.png, figures/eval.png of a record. */
  static void record(Path rec, List<Records.Seed> seeds) throws IOException {
    Path dir = rec.resolve("figures");
    List<Series> solve = new ArrayList<>();
    List<List<JsonNode>> metrics = new ArrayList<>();
    for (Records.Seed s : seeds) metrics.add(s.run().metrics());
    for (int i = 0; i < seeds.size(); i++) {
      long seed = seeds.get(i).run().seed();
      double[][] tr = minutes(RunDir.series(metrics.get(i), "charts/solve_rate"));
      solve.add(Series.line("seed " + seed + " train", tr[0], tr[1]));
      double[][] val = minutes(RunDir.series(metrics.get(i), "val/solve_rate"));
      solve.add(Series.points("seed " + seed + " valid", val[0], val[1]));
    }
    Chart.write(dir.resolve("training.png"), 1, List.of(new Panel("Training solve rate vs wall clock", "training clock (minutes)",
        "solve rate", solve, List.of(new HLine("0.70", 0.70)), 0, 1, null)));

    List<Panel> loss = new ArrayList<>();
    for (String[] l : LOSSES) {
      List<Series> ss = new ArrayList<>();
      for (int i = 0; i < seeds.size(); i++) {
        double[][] v = minutes(RunDir.series(metrics.get(i), l[0]));
        ss.add(Series.line("seed " + seeds.get(i).run().seed(), v[0], v[1]));
      }
      loss.add(new Panel(l[1], "training clock (minutes)", l[0], ss));
    }
    Chart.write(dir.resolve("losses.png"), 2, loss);

    int n = seeds.size();
    double[] x = new double[n], y = new double[n], lo = new double[n], hi = new double[n];
    double[] xw = new double[n], wlo = new double[n], whi = new double[n];
    List<Series> hist = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      EvalReport e = seeds.get(i).eval();
      Interval b = e.bootstrap(), w = e.wilson();
      x[i] = i;
      xw[i] = i + 0.15;
      y[i] = e.passAt1();
      lo[i] = b.lo();
      hi[i] = b.hi();
      wlo[i] = w.lo();
      whi[i] = w.hi();
      int[] bins = new int[12];
      for (EvalReport.LevelResult r : e.levels()) if (r.solved() > 0) bins[Math.min(11, (r.steps()[0] - 1) / 10)]++;
      double[] bx = new double[12], by = new double[12];
      for (int k = 0; k < 12; k++) {
        bx[k] = k * 10 + 5;
        by[k] = bins[k];
      }
      hist.add(Series.line("seed " + seeds.get(i).run().seed(), bx, by));
    }
    List<String> names = seeds.stream().map(s -> "seed " + s.run().seed()).toList();
    Panel ci = new Panel("pass@1 on unfiltered/test, 95% intervals", "", "pass@1",
        List.of(Series.errorBars("bootstrap", x, y, lo, hi), Series.errorBars("Wilson", xw, y, wlo, whi)),
        List.of(new HLine("bar 0.70", 0.70)), 0, 1, v -> {
          int k = (int) Math.round(v);
          return Math.abs(v - k) < 1e-9 && k >= 0 && k < names.size() ? names.get(k) : "";
        });
    Chart.write(dir.resolve("eval.png"), 2, List.of(ci,
        new Panel("Steps to solve (solved levels)", "steps (10-step bins)", "levels", hist)));
  }

  private static double[][] minutes(double[][] s) {
    double[] m = new double[s[0].length];
    for (int i = 0; i < m.length; i++) m[i] = s[0][i] / 60;
    return new double[][] {m, s[1]};
  }

  /** A record as the leaderboard sees it. */
  record Entry(String name, LocalDate date, double timeSeconds, List<String> seedNames, List<List<JsonNode>> metrics) {}

  /** records_over_time.png and training_curves.png in {@code dir}. */
  static void leaderboard(Path dir, List<Entry> entries) throws IOException {
    List<Entry> byDate = new ArrayList<>(entries);
    byDate.sort(java.util.Comparator.comparing(Entry::date).thenComparingDouble(Entry::timeSeconds));
    double[] x = new double[byDate.size()], y = new double[byDate.size()], best = new double[byDate.size()];
    double b = Double.POSITIVE_INFINITY;
    for (int i = 0; i < x.length; i++) {
      x[i] = byDate.get(i).date().toEpochDay();
      y[i] = byDate.get(i).timeSeconds() / 60;
      b = Math.min(b, y[i]);
      best[i] = b;
    }
    Chart.write(dir.resolve("records_over_time.png"), 1, List.of(new Panel("Records over time", "date", "time to the bar (minutes)",
        List.of(Series.points("record", x, y), Series.line("best so far", x, best)), List.of(), 0, 0,
        v -> LocalDate.ofEpochDay(Math.round(v)).toString())));
    List<Series> curves = new ArrayList<>();
    for (Entry e : entries) {
      for (int i = 0; i < e.metrics().size(); i++) {
        double[][] s = minutes(RunDir.series(e.metrics().get(i), "charts/solve_rate"));
        curves.add(Series.line(e.name() + " " + e.seedNames().get(i), s[0], s[1]));
      }
    }
    Chart.write(dir.resolve("training_curves.png"), 1, List.of(new Panel("Training solve rate vs wall clock, every record",
        "training clock (minutes)", "solve rate", curves, List.of(new HLine("0.70", 0.70)), 0, 1, null)));
  }
}
