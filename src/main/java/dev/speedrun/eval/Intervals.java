package dev.speedrun.eval;

import dev.speedrun.env.Rng;
import java.util.Arrays;

/**
 * The benchmark's confidence intervals, one implementation for both tracks (DESIGN.md, "Intervals"):
 * two-sided 95%.
 *
 * <ul>
 *   <li>{@link #bootstrap(double[])}: percentile bootstrap over items of the mean of per-item values
 *       (each in [0, 1]: a level's solve flag, or a puzzle's fraction of k samples solved).
 *       {@value #RESAMPLES} resamples, seed {@value #SEED}, percentiles 2.5 and 97.5.
 *   <li>{@link #wilson(long, long)}: Wilson score interval, z = 1.96, no continuity correction.
 * </ul>
 *
 * <p><b>Resampling, exactly</b> (so another implementation can reproduce it bit for bit): one
 * SplitMix64 stream ({@link Rng}, {@code new Rng(12345)}, state advanced by 0x9E3779B97F4A7C15 and
 * mixed with the Stafford variant 13 finalizer). Resample r = 0..R-1, draw j = 0..n-1, in that
 * order: index = {@code Long.remainderUnsigned(rng.nextLong(), n)} (unsigned 64-bit value mod n; the
 * bias is below n / 2^64). A resample's statistic is the mean: the double sum of the drawn values
 * in draw order, divided by n.
 *
 * <p><b>Percentile</b>: numpy's default ("linear", type 7 of Hyndman and Fan 1996): sort the R
 * statistics ascending into x[0..R-1]; for percentile p (in percent) let h = (R - 1) * p / 100,
 * f = floor(h); the value is x[f] + (h - f) * (x[f + 1] - x[f]) (x[f] when f = R - 1).
 */
public final class Intervals {
  public static final int RESAMPLES = 10_000;
  public static final long SEED = 12345L;
  public static final double LOWER_PERCENTILE = 2.5, UPPER_PERCENTILE = 97.5;
  public static final double Z = 1.96;

  private Intervals() {}

  /** A closed interval [lo, hi]. */
  public record Interval(double lo, double hi) {
    public Interval {
      if (!(lo <= hi)) throw new IllegalArgumentException("interval lo " + lo + " > hi " + hi);
    }
  }

  /** The mean of {@code perItem}. */
  public static double mean(double[] perItem) {
    requireItems(perItem);
    double s = 0;
    for (double v : perItem) s += v;
    return s / perItem.length;
  }

  /** The benchmark's bootstrap interval: 10,000 resamples, seed 12345, percentiles 2.5 and 97.5. */
  public static Interval bootstrap(double[] perItem) {
    return bootstrap(perItem, RESAMPLES, SEED);
  }

  /** Percentile bootstrap of the mean with {@code resamples} resamples drawn from seed {@code seed}. */
  public static Interval bootstrap(double[] perItem, int resamples, long seed) {
    double[] stats = resampleMeans(perItem, resamples, seed);
    Arrays.sort(stats);
    return new Interval(percentile(stats, LOWER_PERCENTILE), percentile(stats, UPPER_PERCENTILE));
  }

  /** The {@code resamples} resample means, in resample order (unsorted); see the class comment. */
  static double[] resampleMeans(double[] perItem, int resamples, long seed) {
    requireItems(perItem);
    if (resamples < 1) throw new IllegalArgumentException("need at least one resample");
    for (int i = 0; i < perItem.length; i++) {
      double v = perItem[i];
      if (!(v >= 0 && v <= 1)) throw new IllegalArgumentException("item " + i + " has value " + v + ", not in [0, 1]");
    }
    int n = perItem.length;
    Rng rng = new Rng(seed);
    double[] stats = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += perItem[(int) Long.remainderUnsigned(rng.nextLong(), n)];
      stats[r] = s / n;
    }
    return stats;
  }

  /**
   * Percentile {@code p} (0..100) of ascending {@code sorted}, numpy's default linear
   * interpolation: h = (len - 1) * p / 100, x[floor h] + frac(h) * (x[floor h + 1] - x[floor h]).
   */
  public static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) throw new IllegalArgumentException("percentile of nothing");
    if (!(p >= 0 && p <= 100)) throw new IllegalArgumentException("percentile " + p + " is not in [0, 100]");
    double h = (sorted.length - 1) * p / 100.0;
    int f = (int) Math.floor(h);
    if (f >= sorted.length - 1) return sorted[sorted.length - 1];
    double frac = h - f;
    return sorted[f] + frac * (sorted[f + 1] - sorted[f]);
  }

  /** Wilson score interval for {@code successes} of {@code n}, z = 1.96, no continuity correction. */
  public static Interval wilson(long successes, long n) {
    return wilson(successes, n, Z);
  }

  /**
   * Wilson score interval: (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = s/n,
   * clamped to [0, 1] (only rounding can push it out).
   */
  public static Interval wilson(long successes, long n, double z) {
    if (n < 1) throw new IllegalArgumentException("Wilson interval needs n >= 1, got " + n);
    if (successes < 0 || successes > n) throw new IllegalArgumentException("successes " + successes + " not in 0.." + n);
    double p = (double) successes / n;
    double z2 = z * z;
    double denom = 1 + z2 / n;
    double center = (p + z2 / (2.0 * n)) / denom;
    double half = z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denom;
    double lo = successes == 0 ? 0 : Math.max(0, center - half);
    double hi = successes == n ? 1 : Math.min(1, center + half);
    return new Interval(lo, hi);
  }

  private static void requireItems(double[] perItem) {
    if (perItem == null || perItem.length == 0) throw new IllegalArgumentException("no items to average");
  }
}
