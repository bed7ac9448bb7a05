package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.eval.Intervals;
import org.junit.jupiter.api.Test;

class PassStatsTest {
  @Test
  void figuresFromCountsByHand() {
    // 4 puzzles, k = 8: solved 8, 4, 0, 2 -> per-puzzle 1, .5, 0, .25; pass@1 = 1.75 / 4.
    PassStats s = PassStats.of(new int[] {8, 4, 0, 2}, new int[] {8, 8, 6, 8}, 8);
    assertThat(s.pass1()).isEqualTo(0.4375);
    assertThat(s.passK()).isEqualTo(0.75);
    assertThat(s.answerRate()).isEqualTo(30.0 / 32);
    assertThat(s.interval()).isEqualTo("bootstrap");
    Intervals.Interval ci = Intervals.bootstrap(new double[] {1, 0.5, 0, 0.25});
    assertThat(s.lo()).isEqualTo(ci.lo());
    assertThat(s.hi()).isEqualTo(ci.hi());
    assertThat(s.lo()).isBetween(0.0, 0.4375);
  }

  @Test
  void kOneUsesWilson() {
    // 3 of 4 solved; Wilson z = 1.96 lower bound worked by hand:
    // p = .75, n = 4, z2 = 3.8416: center = (.75 + .4802) / 1.9604, half = 1.96 sqrt(.046875 + .060025) / 1.9604
    PassStats s = PassStats.of(new int[] {1, 1, 0, 1}, new int[] {1, 1, 1, 1}, 1);
    double center = (0.75 + 3.8416 / 8) / (1 + 3.8416 / 4);
    double half = 1.96 * Math.sqrt(0.75 * 0.25 / 4 + 3.8416 / 64) / (1 + 3.8416 / 4);
    assertThat(s.interval()).isEqualTo("wilson");
    assertThat(s.lo()).isCloseTo(center - half, within(1e-12));
    assertThat(s.lo()).isCloseTo(0.3006, within(1e-4));
    assertThat(s.pass1()).isEqualTo(0.75);
    assertThat(s.passK()).isEqualTo(0.75);
  }
}
