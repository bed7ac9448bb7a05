package dev.speedrun.record;

import dev.speedrun.eval.AtomicWrite;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import javax.imageio.ImageIO;

/**
 * Minimal PNG charts with java.awt (headless; no dependency): panels of line, point and
 * error-bar series on linear axes, optionally with horizontal reference lines, laid out in a grid.
 */
public final class Chart {
  private Chart() {}

  public enum Kind { LINE, POINTS, ERRORBARS }

  /** A series; {@code lo}/{@code hi} only for {@link Kind#ERRORBARS}. NaN points are skipped. */
  public record Series(String name, Kind kind, double[] x, double[] y, double[] lo, double[] hi) {
    public static Series line(String name, double[] x, double[] y) { return new Series(name, Kind.LINE, x, y, null, null); }
    public static Series points(String name, double[] x, double[] y) { return new Series(name, Kind.POINTS, x, y, null, null); }
    public static Series errorBars(String name, double[] x, double[] y, double[] lo, double[] hi) {
      return new Series(name, Kind.ERRORBARS, x, y, lo, hi);
    }
  }

  /** A horizontal reference line at {@code y}. */
  public record HLine(String label, double y) {}

  /** One panel; {@code xTicks} formats x tick labels (null: numbers). Fixed y range when yMin < yMax. */
  public record Panel(String title, String xLabel, String yLabel, List<Series> series, List<HLine> hlines,
      double yMin, double yMax, DoubleFunction<String> xTicks) {
    public Panel(String title, String xLabel, String yLabel, List<Series> series) {
      this(title, xLabel, yLabel, series, List.of(), 0, 0, null);
    }
  }

  private static final Color[] PALETTE = {
    new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
    new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};
  private static final int PW = 560, PH = 360;

  /** Writes {@code panels} in a grid of {@code cols} columns to {@code file} (PNG, atomic). */
  public static void write(Path file, int cols, List<Panel> panels) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int rows = (panels.size() + cols - 1) / cols;
    BufferedImage img = new BufferedImage(PW * cols, PH * rows, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    for (int i = 0; i < panels.size(); i++) draw(g, panels.get(i), (i % cols) * PW, (i / cols) * PH);
    g.dispose();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(img, "png", out);
    AtomicWrite.write(file, out.toByteArray());
  }

  private static void draw(Graphics2D g, Panel p, int ox, int oy) {
    int left = ox + 70, right = ox + PW - 20, top = oy + 36, bottom = oy + PH - 56;
    double xmin = Double.POSITIVE_INFINITY, xmax = Double.NEGATIVE_INFINITY;
    double ymin = Double.POSITIVE_INFINITY, ymax = Double.NEGATIVE_INFINITY;
    for (Series s : p.series()) {
      for (int i = 0; i < s.x().length; i++) {
        if (Double.isNaN(s.x()[i]) || Double.isNaN(s.y()[i])) continue;
        xmin = Math.min(xmin, s.x()[i]);
        xmax = Math.max(xmax, s.x()[i]);
        ymin = Math.min(ymin, s.kind() == Kind.ERRORBARS ? s.lo()[i] : s.y()[i]);
        ymax = Math.max(ymax, s.kind() == Kind.ERRORBARS ? s.hi()[i] : s.y()[i]);
      }
    }
    for (HLine h : p.hlines()) {
      ymin = Math.min(ymin, h.y());
      ymax = Math.max(ymax, h.y());
    }
    if (p.yMin() < p.yMax()) {
      ymin = p.yMin();
      ymax = p.yMax();
    }
    boolean empty = xmin > xmax;
    if (empty) {
      xmin = 0; xmax = 1; ymin = 0; ymax = 1;
    }
    if (p.series().stream().anyMatch(s -> s.kind() == Kind.ERRORBARS)) { xmin -= 0.5; xmax += 0.5; } // categories
    if (xmin == xmax) { xmin -= 0.5; xmax += 0.5; }
    if (ymin == ymax) { ymin -= 0.5; ymax += 0.5; }
    double padY = (ymax - ymin) * 0.05;
    if (!(p.yMin() < p.yMax())) { ymin -= padY; ymax += padY; }
    final double x0 = xmin, x1 = xmax, y0 = ymin, y1 = ymax;
    java.util.function.DoubleUnaryOperator sx = v -> left + (v - x0) / (x1 - x0) * (right - left);
    java.util.function.DoubleUnaryOperator sy = v -> bottom - (v - y0) / (y1 - y0) * (bottom - top);

    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.setColor(Color.BLACK);
    g.drawString(p.title(), left, oy + 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    FontMetrics fm = g.getFontMetrics();
    // Axes, grid, ticks.
    g.setColor(new Color(0xeeeeee));
    for (double t : ticks(y0, y1)) g.drawLine(left, (int) sy.applyAsDouble(t), right, (int) sy.applyAsDouble(t));
    for (double t : ticks(x0, x1)) g.drawLine((int) sx.applyAsDouble(t), top, (int) sx.applyAsDouble(t), bottom);
    g.setColor(Color.DARK_GRAY);
    g.drawRect(left, top, right - left, bottom - top);
    for (double t : ticks(y0, y1)) {
      String s = num(t);
      g.drawString(s, left - 6 - fm.stringWidth(s), (int) sy.applyAsDouble(t) + 4);
    }
    for (double t : ticks(x0, x1)) {
      String s = p.xTicks() != null ? p.xTicks().apply(t) : num(t);
      g.drawString(s, (int) sx.applyAsDouble(t) - fm.stringWidth(s) / 2, bottom + 16);
    }
    g.drawString(p.xLabel(), (left + right) / 2 - fm.stringWidth(p.xLabel()) / 2, bottom + 34);
    Graphics2D gr = (Graphics2D) g.create();
    gr.rotate(-Math.PI / 2);
    gr.drawString(p.yLabel(), -((top + bottom) / 2 + fm.stringWidth(p.yLabel()) / 2), ox + 16);
    gr.dispose();
    if (empty) {
      g.drawString("no data", (left + right) / 2 - 20, (top + bottom) / 2);
      return;
    }
    Graphics2D clip = (Graphics2D) g.create();
    clip.clipRect(left, top, right - left + 1, bottom - top + 1);
    for (HLine h : p.hlines()) {
      clip.setColor(new Color(0xaa0000));
      clip.setStroke(new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      int y = (int) sy.applyAsDouble(h.y());
      clip.drawLine(left, y, right, y);
      clip.drawString(h.label(), left + 4, y - 4);
    }
    clip.setStroke(new BasicStroke(1.6f));
    int legendY = top + 14;
    for (int k = 0; k < p.series().size(); k++) {
      Series s = p.series().get(k);
      Color c = PALETTE[k % PALETTE.length];
      clip.setColor(c);
      int px = Integer.MIN_VALUE, py = 0;
      for (int i = 0; i < s.x().length; i++) {
        if (Double.isNaN(s.x()[i]) || Double.isNaN(s.y()[i])) {
          px = Integer.MIN_VALUE;
          continue;
        }
        int x = (int) Math.round(sx.applyAsDouble(s.x()[i])), y = (int) Math.round(sy.applyAsDouble(s.y()[i]));
        switch (s.kind()) {
          case LINE -> {
            if (px != Integer.MIN_VALUE) clip.drawLine(px, py, x, y);
          }
          case POINTS -> clip.fillOval(x - 3, y - 3, 7, 7);
          case ERRORBARS -> {
            int ylo = (int) Math.round(sy.applyAsDouble(s.lo()[i])), yhi = (int) Math.round(sy.applyAsDouble(s.hi()[i]));
            clip.drawLine(x, ylo, x, yhi);
            clip.drawLine(x - 6, ylo, x + 6, ylo);
            clip.drawLine(x - 6, yhi, x + 6, yhi);
            clip.fillOval(x - 4, y - 4, 9, 9);
          }
        }
        px = x;
        py = y;
      }
      if (s.name() != null && !s.name().isEmpty()) {
        clip.fillRect(right - 150, legendY - 8, 12, 8);
        clip.setColor(Color.BLACK);
        clip.drawString(s.name(), right - 134, legendY);
        legendY += 15;
      }
    }
    clip.dispose();
  }

  /** About five round tick values covering [lo, hi]. */
  static double[] ticks(double lo, double hi) {
    double span = hi - lo;
    double step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (span / (step * m) <= 6) {
        step *= m;
        break;
      }
    }
    double first = Math.ceil(lo / step) * step;
    int n = (int) Math.floor((hi - first) / step + 1e-9) + 1;
    double[] t = new double[Math.max(0, n)];
    for (int i = 0; i < t.length; i++) t[i] = first + i * step;
    return t;
  }

  static String num(double v) {
    double a = Math.abs(v);
    if (v == 0) return "0";
    if (a >= 1e6 || a < 1e-3) return String.format(Locale.ROOT, "%.1e", v);
    if (a >= 100) return String.format(Locale.ROOT, "%.0f", v);
    String s = String.format(Locale.ROOT, "%.3f", v);
    return s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
