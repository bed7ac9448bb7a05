package dev.speedrun.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.eval.Intervals.Interval;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class IntervalsTest {
  private static final double Z2 = 1.96 * 1.96; // 3.8416

  // ---- Wilson, by hand ----

  @Test
  void wilsonSevenOfTen() {
    // p = 0.7, z^2/n = 0.38416, denom = 1.38416
    // center = (0.7 + 0.19208) / 1.38416 = 0.644593...
    // half   = 1.96 * sqrt(0.021 + 0.009604) / 1.38416 = 1.96 * 0.174940 / 1.38416 = 0.247720...
    // Published tables: 7/10 -> [0.3968, 0.8922].
    Interval w = Intervals.wilson(7, 10);
    double center = (0.7 + Z2 / 20) / (1 + Z2 / 10);
    double half = 1.96 * Math.sqrt(0.7 * 0.3 / 10 + Z2 / 400) / (1 + Z2 / 10);
    assertThat(w.lo()).isCloseTo(center - half, within(1e-15)).isCloseTo(0.39677322, within(1e-8));
    assertThat(w.hi()).isCloseTo(center + half, within(1e-15)).isCloseTo(0.89221071, within(1e-8));
  }

  @Test
  void wilsonAtTheEdgesHasClosedForms() {
    // s = 0: lo = 0, hi = (z^2/n) / (1 + z^2/n) = 0.38416 / 1.38416
    Interval none = Intervals.wilson(0, 10);
    assertThat(none.lo()).isEqualTo(0.0);
    assertThat(none.hi()).isCloseTo(0.38416 / 1.38416, within(1e-15));
    // s = n: lo = 1 / (1 + z^2/n) = 10 / 13.8416, hi = 1
    Interval all = Intervals.wilson(10, 10);
    assertThat(all.lo()).isCloseTo(10 / 13.8416, within(1e-15));
    assertThat(all.hi()).isEqualTo(1.0);
    // s = 1, n = 1: lo = 1 / (1 + 3.8416)
    assertThat(Intervals.wilson(1, 1).lo()).isCloseTo(1 / 4.8416, within(1e-15));
  }

  @Test
  void wilsonOneOfTwoIsCenteredOnOneHalf() {
    // p = 1/2: center = 1/2 exactly; half = 1.96 sqrt(0.125 + 3.8416/16) / (1 + 1.9208)
    Interval w = Intervals.wilson(1, 2);
    double half = 1.96 * Math.sqrt(0.125 + Z2 / 16) / (1 + Z2 / 2);
    assertThat(w.lo()).isCloseTo(0.5 - half, within(1e-15)).isCloseTo(0.0945287, within(1e-7));
    assertThat(w.hi()).isCloseTo(0.5 + half, within(1e-15));
  }

  @Test
  void wilsonAtTheBarScale() {
    // 700 of 1000 (the bar's neighbourhood): [0.67088, 0.72759] (scipy binomtest(...).proportion_ci('wilson')).
    Interval w = Intervals.wilson(700, 1000);
    assertThat(w.lo()).isCloseTo(0.6708756, within(1e-7));
    assertThat(w.hi()).isCloseTo(0.7275936, within(1e-7));
  }

  @Test
  void wilsonRejectsNonsense() {
    assertThatThrownBy(() -> Intervals.wilson(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Intervals.wilson(11, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Intervals.wilson(-1, 10)).isInstanceOf(IllegalArgumentException.class);
  }

  // ---- percentile (numpy's default linear interpolation) ----

  @Test
  void percentileMatchesNumpyLinear() {
    double[] x = {1, 2, 3, 4};
    // numpy.percentile([1,2,3,4], [2.5, 50, 97.5]) -> [1.075, 2.5, 3.925]
    assertThat(Intervals.percentile(x, 2.5)).isCloseTo(1.075, within(1e-12));
    assertThat(Intervals.percentile(x, 50)).isCloseTo(2.5, within(1e-12));
    assertThat(Intervals.percentile(x, 97.5)).isCloseTo(3.925, within(1e-12));
    assertThat(Intervals.percentile(x, 0)).isEqualTo(1);
    assertThat(Intervals.percentile(x, 100)).isEqualTo(4);
    assertThat(Intervals.percentile(new double[] {7}, 2.5)).isEqualTo(7);
  }

  // ---- bootstrap ----

  @Test
  void bootstrapOfConstantsIsThePoint() {
    double[] zeros = new double[1000];
    double[] ones = new double[1000];
    Arrays.fill(ones, 1.0);
    assertThat(Intervals.bootstrap(zeros)).isEqualTo(new Interval(0, 0));
    assertThat(Intervals.bootstrap(ones)).isEqualTo(new Interval(1, 1));
    assertThat(Intervals.bootstrap(new double[] {0.375})).isEqualTo(new Interval(0.375, 0.375));
  }

  @Test
  void resamplingFollowsTheDocumentedSplitMix64Draws() {
    // Independent SplitMix64 written here from the reference (Vigna's splitmix64.c).
    long[] state = {Intervals.SEED};
    java.util.function.LongSupplier next = () -> {
      long z = (state[0] += 0x9E3779B97F4A7C15L);
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    };
    double[] items = {0.0, 0.25, 0.5, 0.75, 1.0, 0.125, 0.875};
    double[] means = Intervals.resampleMeans(items, 50, Intervals.SEED);
    for (int r = 0; r < 50; r++) {
      double s = 0;
      for (int j = 0; j < items.length; j++) s += items[(int) Long.remainderUnsigned(next.getAsLong(), items.length)];
      assertThat(means[r]).isEqualTo(s / items.length);
    }
  }

  @Test
  void splitMix64MatchesTheReferenceOutput() {
    // splitmix64 seeded with 0: first output 0xE220A8397B1DCDAF (reference implementation).
    assertThat(new dev.speedrun.env.Rng(0).nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
  }

  @Test
  void tinyInputFollowsItsExactResamplingDistribution() {
    // Items {0,0,0,1}: a resample mean is K/4 with K ~ Binomial(4, 1/4):
    // P = 81/256, 108/256, 54/256, 12/256, 1/256 for K = 0..4.
    double[] items = {0, 0, 0, 1};
    double[] means = Intervals.resampleMeans(items, Intervals.RESAMPLES, Intervals.SEED);
    int[] count = new int[5];
    for (double m : means) count[(int) Math.round(m * 4)]++;
    double[] p = {81 / 256.0, 108 / 256.0, 54 / 256.0, 12 / 256.0, 1 / 256.0};
    double chi2 = 0;
    for (int k = 0; k < 5; k++) {
      double e = p[k] * Intervals.RESAMPLES;
      chi2 += (count[k] - e) * (count[k] - e) / e;
    }
    assertThat(chi2).as("chi-square, 4 d.o.f. (99.9%% point 18.47), counts %s", Arrays.toString(count)).isLessThan(18.47);
    // Cumulative: P(K<=0) = 0.316 > 0.025, so the 2.5th percentile is 0; P(K<=2) = 0.949 < 0.975 <=
    // P(K<=3) = 0.996, so the 97.5th percentile is 3/4 (far from the edges of the sampling error).
    assertThat(Intervals.bootstrap(items)).isEqualTo(new Interval(0, 0.75));
  }

  @Test
  void twoItemsGiveTheFullRange() {
    // Items {0,1}: P(mean = 0) = P(mean = 1) = 1/4, both far above 2.5%.
    assertThat(Intervals.bootstrap(new double[] {0, 1})).isEqualTo(new Interval(0, 1));
  }

  @Test
  void complementIsTheMirrorImage() {
    // Same draws on 1 - v: every mean becomes 1 - mean, the sorted order reverses, and the
    // interpolation positions (R-1)*0.025 and (R-1)*0.975 mirror each other.
    double[] v = new double[300];
    double[] w = new double[300];
    dev.speedrun.env.Rng rng = new dev.speedrun.env.Rng(7);
    for (int i = 0; i < v.length; i++) {
      v[i] = rng.nextInt(8) / 8.0;
      w[i] = 1 - v[i];
    }
    Interval a = Intervals.bootstrap(v), b = Intervals.bootstrap(w);
    assertThat(b.lo()).isCloseTo(1 - a.hi(), within(1e-12));
    assertThat(b.hi()).isCloseTo(1 - a.lo(), within(1e-12));
  }

  @Test
  void isDeterministicAndDependsOnTheSeed() {
    double[] v = new double[1000];
    for (int i = 0; i < v.length; i++) v[i] = (i * 37 % 100) < 71 ? 1 : 0;
    assertThat(Intervals.bootstrap(v)).isEqualTo(Intervals.bootstrap(v));
    assertThat(Intervals.resampleMeans(v, 100, 1)).isNotEqualTo(Intervals.resampleMeans(v, 100, 2));
  }

  @Test
  void agreesWithTheNormalApproximationAtScale() {
    // 710 of 1000 solved: normal approximation 0.71 -+ 1.96 sqrt(0.71*0.29/1000) = 0.71 -+ 0.02812.
    // The bootstrap's percentile error at R = 10,000 is about 0.001; allow 0.004.
    double[] v = new double[1000];
    for (int i = 0; i < 710; i++) v[i] = 1;
    Interval b = Intervals.bootstrap(v);
    double half = 1.96 * Math.sqrt(0.71 * 0.29 / 1000);
    assertThat(b.lo()).isCloseTo(0.71 - half, within(0.004));
    assertThat(b.hi()).isCloseTo(0.71 + half, within(0.004));
    // Each resample mean is a multiple of 1/1000 and both percentile positions carry a fraction,
    // but neighbours in a sorted run of equal values interpolate to that value; either way lo <= mean <= hi.
    assertThat(b.lo()).isLessThan(0.71);
    assertThat(b.hi()).isGreaterThan(0.71);
  }

  @Test
  void rejectsValuesOutsideTheUnitInterval() {
    assertThatThrownBy(() -> Intervals.bootstrap(new double[] {0.5, 1.5})).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("item 1");
    assertThatThrownBy(() -> Intervals.bootstrap(new double[] {Double.NaN})).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Intervals.bootstrap(new double[0])).isInstanceOf(IllegalArgumentException.class);
  }
}
