package dev.speedrun.rl;

import java.io.PrintStream;

/**
 * What a run shows while it trains. In a terminal: a block redrawn in place after every iteration
 * (in the spirit of PufferLib's dashboard: progress bar, ETA, steps/s, solve rate, losses, and the
 * time split between environment, rollout forward and learning). Otherwise: the log's plain
 * {@code step:} lines, one per iteration.
 */
public class Dashboard {
  private final PrintStream out;
  private final boolean live;
  private int drawnLines;

  public Dashboard(PrintStream out, boolean live) {
    this.out = out;
    this.live = live;
  }

  /** Live when standard output is a terminal (and not redirected), plain otherwise. */
  public static Dashboard forStdout() {
    java.io.Console c = System.console();
    boolean tty = c != null && c.isTerminal() && System.getenv("TERM") != null && !"dumb".equals(System.getenv("TERM"));
    return new Dashboard(System.out, tty);
  }

  /** Shows nothing (tests). */
  public static Dashboard silent() {
    return new Dashboard(null, false) {
      @Override public void update(Trainer.Metrics m, long total, long totalSteps, double clock, double sps, double avgSps,
          double val, long nEnv, long nFwd, long nLearn, String plain) {}

      @Override public void finish(String line) {}
    };
  }

  public void update(Trainer.Metrics m, long total, long totalSteps, double clock, double sps, double avgSps, double val,
      long nEnv, long nFwd, long nLearn, String plain) {
    if (!live) {
      out.println(plain);
      return;
    }
    double frac = Math.min(1, (double) m.iteration() / total);
    double eta = avgSps > 0 ? (double) (totalSteps - m.globalStep()) / avgSps : 0;
    double all = Math.max(1, nEnv + nFwd + nLearn);
    int width = 40, filled = (int) Math.round(frac * width);
    StringBuilder sb = new StringBuilder();
    if (drawnLines > 0) sb.append("\033[").append(drawnLines).append("A");
    line(sb, String.format("\033[1mspeedrun train\033[0m  [%s%s] %5.1f%%  iter %d/%d",
        "#".repeat(filled), ".".repeat(width - filled), 100 * frac, m.iteration(), total));
    line(sb, String.format("steps %,d / %,d   clock %s   ETA %s   %,.0f steps/s (avg %,.0f)", m.globalStep(), totalSteps,
        TrainingRun.clockString(clock), TrainingRun.clockString(eta), sps, avgSps));
    line(sb, String.format("solve %s   return %s   length %s   episodes %,d   val %s", fmt("%.4f", m.solveRate()),
        fmt("%.3f", m.episodicReturn()), fmt("%.1f", m.episodicLength()), m.episodes(), fmt("%.4f", val)));
    line(sb, String.format("policy %.4f   value %.4f   entropy %.4f   kl %.5f   clip %.3f   lr %.3g   gnorm %.3f",
        m.policyLoss(), m.valueLoss(), m.entropy(), m.approxKl(), m.clipFrac(), m.learningRate(), m.gradNorm()));
    line(sb, String.format("time: env %.0f%%   forward %.0f%%   learn %.0f%%", 100 * nEnv / all, 100 * nFwd / all,
        100 * nLearn / all));
    drawnLines = 5;
    out.print(sb);
    out.flush();
  }

  private static String fmt(String f, double v) {
    return Double.isNaN(v) ? "-" : String.format(f, v);
  }

  private static void line(StringBuilder sb, String s) {
    sb.append("\r\033[2K").append(s).append('\n');
  }

  public void finish(String line) {
    out.println(line);
  }
}
