package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** GAE and V-trace against cases worked by hand (all values exact in binary floating point). */
class AdvantagesTest {
  // T = 3, one env: rewards 1, 0, 2; values 0.5, 1, 0.25; bootstrap V(s_3) = 4; gamma = lambda = 0.5.
  private static final float[] R = {1, 0, 2}, V = {0.5f, 1, 0.25f}, BOOT = {4};

  private static float[] gae(boolean[] dones, float[] ratio, float rhoBar, float cBar) {
    float[] adv = new float[3];
    Advantages.compute(3, 1, R, dones, V, BOOT, ratio, 0.5f, 0.5f, rhoBar, cBar, adv);
    return adv;
  }

  @Test
  void plainGae() {
    // delta2 = 2 + .5*4 - .25 = 3.75; delta1 = 0 + .5*.25 - 1 = -.875; delta0 = 1 + .5*1 - .5 = 1
    // A2 = 3.75; A1 = -.875 + .25*3.75 = .0625; A0 = 1 + .25*.0625 = 1.015625
    assertThat(gae(new boolean[3], null, 1, 1)).containsExactly(1.015625f, 0.0625f, 3.75f);
  }

  @Test
  void terminalStopsBootstrapAndTrace() {
    // done at t = 1: delta1 = 0 - 1 = -1, A1 = -1; A0 = 1 + .25*(-1) = .75; A2 unchanged.
    assertThat(gae(new boolean[] {false, true, false}, null, 1, 1)).containsExactly(0.75f, -1f, 3.75f);
    // done at the last step: V(s_3) is not used. delta2 = 2 - .25 = 1.75.
    float[] adv = gae(new boolean[] {false, false, true}, null, 1, 1);
    assertThat(adv[2]).isEqualTo(1.75f);
    assertThat(adv[1]).isEqualTo(-0.875f + 0.25f * 1.75f);
  }

  @Test
  void unitRatiosEqualPlainGae() {
    assertThat(gae(new boolean[3], new float[] {1, 1, 1}, 1, 1)).containsExactly(gae(new boolean[3], null, 1, 1));
  }

  @Test
  void vtraceClipsRatios() {
    float[] ratio = {2f, 0.5f, 1.5f};
    // rhoBar = cBar = 1: rho = c = (1, .5, 1).
    // A2 = 3.75; A1 = .5*(-.875) + .25*.5*3.75 = .03125; A0 = 1 + .25*1*.03125 = 1.0078125
    assertThat(gae(new boolean[3], ratio, 1, 1)).containsExactly(1.0078125f, 0.03125f, 3.75f);
    // rhoBar = 1.5, cBar = .5: rho = (1.5, .5, 1.5), c = (.5, .5, .5).
    // A2 = 5.625; A1 = -.4375 + .25*.5*5.625 = .265625; A0 = 1.5 + .25*.5*.265625 = 1.533203125
    assertThat(gae(new boolean[3], ratio, 1.5f, 0.5f)).containsExactly(1.533203125f, 0.265625f, 5.625f);
  }

  @Test
  void timeMajorLayoutKeepsEnvsApart() {
    // Two envs interleaved [T][N]: env 0 is the case above, env 1 has zero rewards and values.
    float[] r = {1, 0, 0, 0, 2, 0}, v = {0.5f, 0, 1, 0, 0.25f, 0}, boot = {4, 0};
    float[] adv = new float[6];
    Advantages.compute(3, 2, r, new boolean[6], v, boot, null, 0.5f, 0.5f, 1, 1, adv);
    assertThat(adv).containsExactly(1.015625f, 0, 0.0625f, 0, 3.75f, 0);
  }
}
