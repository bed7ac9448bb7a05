package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.env.Rng;
import org.junit.jupiter.api.Test;

/**
 * The hand-written loss gradients against double-precision central differences of an independent
 * reference (softmax then log, PPO's min form of the clipped objective).
 */
class PpoLossTest {
  private static final int A = 5;

  /** Reference loss in double, written differently from PpoLoss on purpose. */
  static double reference(int m, double[] logits, double[] values, int[] act, float[] oldLogp, float[] adv,
      float[] ret, float[] oldV, PpoLoss.Coefs c) {
    double total = 0, e = c.clip();
    for (int k = 0; k < m; k++) {
      double[] p = new double[A];
      double z = 0;
      for (int j = 0; j < A; j++) z += Math.exp(logits[k * A + j]);
      double ent = 0;
      for (int j = 0; j < A; j++) {
        p[j] = Math.exp(logits[k * A + j]) / z;
        ent -= p[j] * Math.log(p[j]);
      }
      double r = p[act[k]] / Math.exp(oldLogp[k]);
      double surrogate = Math.min(r * adv[k], Math.max(1 - e, Math.min(1 + e, r)) * adv[k]);
      double v = values[k];
      double vloss = (v - ret[k]) * (v - ret[k]);
      if (c.clipValue()) {
        double vc = oldV[k] + Math.max(-e, Math.min(e, v - oldV[k]));
        vloss = Math.max(vloss, (vc - ret[k]) * (vc - ret[k]));
      }
      total += -surrogate - c.entropyCoef() * ent + c.valueCoef() * 0.5 * vloss;
    }
    return total / m;
  }

  @Test
  void handWorkedCase() {
    // Uniform logits: p = 0.2, H = ln 5; old logp = ln 0.2 so r = 1; pg = -adv = -2.
    // Value 0.5, return 1.5: 0.5 * 1 = 0.5. Loss = -2 - 0.01 ln 5 + 0.5 * 0.5.
    PpoLoss.Coefs c = new PpoLoss.Coefs(0.2f, true, 0.5f, 0.01f);
    float[] dl = new float[A], dv = new float[1];
    PpoLoss.Stats st = new PpoLoss.Stats();
    double loss = PpoLoss.compute(1, A, new float[A], new float[] {0.5f}, new int[] {0},
        new float[] {(float) Math.log(0.2)}, new float[] {2}, new float[] {1.5f}, new float[] {0.5f}, c, dl, dv, null, st);
    assertThat(loss).isCloseTo(-2 - 0.01 * Math.log(5) + 0.25, within(1e-6));
    assertThat(st.approxKl).isCloseTo(0, within(1e-6));
    assertThat(st.clipFrac).isZero();
    assertThat(st.entropy).isCloseTo(Math.log(5), within(1e-6));
    // dpg/dl_j = -adv * ([j=0] - 0.2); entropy gradient is 0 at the uniform distribution.
    assertThat(dl[0]).isCloseTo(-2 * 0.8f, within(1e-6f));
    assertThat(dl[1]).isCloseTo(2 * 0.2f, within(1e-6f));
    assertThat(dv[0]).isCloseTo(0.5f * (0.5f - 1.5f), within(1e-6f));
  }

  @Test
  void gradientsMatchFiniteDifferences() {
    for (boolean clipValue : new boolean[] {false, true}) {
      PpoLoss.Coefs c = new PpoLoss.Coefs(0.2f, clipValue, 0.5f, 0.05f);
      int m = 64;
      Rng rng = new Rng(7 + (clipValue ? 1 : 0));
      float[] logits = new float[m * A], values = new float[m], oldLogp = new float[m], adv = new float[m],
          ret = new float[m], oldV = new float[m];
      int[] act = new int[m];
      int clipped = 0, valueClipped = 0;
      for (int k = 0; k < m; k++) {
        while (true) {
          for (int j = 0; j < A; j++) logits[k * A + j] = (float) (rng.nextDouble() * 4 - 2);
          act[k] = rng.nextInt(A);
          double lp = Trainer.logProb(logits, k * A, act[k]);
          oldLogp[k] = (float) (lp + rng.nextDouble() * 0.8 - 0.4); // ratios from 0.67 to 1.5
          adv[k] = (float) (rng.nextDouble() * 4 - 2);
          values[k] = (float) (rng.nextDouble() * 2 - 1);
          oldV[k] = (float) (values[k] + rng.nextDouble() * 0.8 - 0.4);
          ret[k] = (float) (rng.nextDouble() * 2 - 1);
          // Stay away from the kinks of the clips, where the derivative jumps.
          double r = Math.exp(lp - oldLogp[k]);
          double d = values[k] - oldV[k];
          double vc = oldV[k] + Math.max(-0.2, Math.min(0.2, d));
          double lu = Math.pow(values[k] - ret[k], 2), lc = Math.pow(vc - ret[k], 2);
          if (Math.abs(r - 0.8) > 1e-2 && Math.abs(r - 1.2) > 1e-2 && Math.abs(Math.abs(d) - 0.2) > 1e-2
              && Math.abs(lu - lc) > 1e-2) {
            if (Math.abs(r - 1) > 0.2) clipped++;
            if (lc > lu) valueClipped++;
            break;
          }
        }
      }
      assertThat(clipped).as("some ratios are clipped").isGreaterThan(5);
      if (clipValue) assertThat(valueClipped).as("some value losses are clipped").isGreaterThan(5);

      float[] dl = new float[m * A], dv = new float[m];
      double loss = PpoLoss.compute(m, A, logits, values, act, oldLogp, adv, ret, oldV, c, dl, dv, null, null);
      double[] l = toDouble(logits), v = toDouble(values);
      assertThat(loss).isCloseTo(reference(m, l, v, act, oldLogp, adv, ret, oldV, c), within(1e-9));
      double h = 1e-6;
      for (int k = 0; k < m * A; k++) {
        double keep = l[k];
        l[k] = keep + h;
        double up = reference(m, l, v, act, oldLogp, adv, ret, oldV, c);
        l[k] = keep - h;
        double down = reference(m, l, v, act, oldLogp, adv, ret, oldV, c);
        l[k] = keep;
        assertThat((double) dl[k]).as("dlogits[%d]", k).isCloseTo((up - down) / (2 * h), within(1e-6));
      }
      for (int k = 0; k < m; k++) {
        double keep = v[k];
        v[k] = keep + h;
        double up = reference(m, l, v, act, oldLogp, adv, ret, oldV, c);
        v[k] = keep - h;
        double down = reference(m, l, v, act, oldLogp, adv, ret, oldV, c);
        v[k] = keep;
        assertThat((double) dv[k]).as("dvalues[%d]", k).isCloseTo((up - down) / (2 * h), within(1e-6));
      }
    }
  }

  private static double[] toDouble(float[] x) {
    double[] d = new double[x.length];
    for (int k = 0; k < x.length; k++) d[k] = x[k];
    return d;
  }
}
