package dev.speedrun.rl;

/**
 * The PPO loss over a minibatch of M samples and its gradient with respect to the policy's outputs,
 * written out by hand so the network only needs dLoss/dlogits and dLoss/dvalues.
 *
 * <pre>
 *   logp_j  = l_j - logsumexp(l),  p_j = exp(logp_j)               (log-softmax over A actions)
 *   r       = exp(logp_a - oldLogp_a)                               (ratio for the taken action a)
 *   pg      = max(-adv * r, -adv * clip(r, 1 - eps, 1 + eps))
 *   H       = -sum_j p_j logp_j
 *   v_clip  = oldV + clip(v - oldV, -eps, eps)
 *   vloss   = 0.5 * max((v - ret)^2, (v_clip - ret)^2)               (or 0.5 (v - ret)^2 unclipped)
 *   loss    = mean over samples of  pg - entCoef * H + valueCoef * vloss
 *
 *   dpg/dlogp_a   = -adv * r when the unclipped term is the max, else 0
 *   dlogp_a/dl_j  = [j = a] - p_j
 *   dH/dl_j       = -p_j (logp_j + H)
 * </pre>
 *
 * Arithmetic is in double per sample (M x A is tiny next to the network), results stored as float.
 */
public final class PpoLoss {
  private PpoLoss() {}

  /** Loss coefficients (from the recipe). */
  public record Coefs(float clip, boolean clipValue, float valueCoef, float entropyCoef) {
    public static Coefs of(Recipe r) {
      return new Coefs(r.clipCoef(), r.clipValueLoss(), r.valueCoef(), r.entropyCoef());
    }
  }

  /** Sums of the loss terms over samples; divide by {@link #count} for means. */
  public static final class Stats {
    public double policyLoss, valueLoss, entropy, approxKl, clipFrac, loss;
    public long count;

    public void clear() {
      policyLoss = valueLoss = entropy = approxKl = clipFrac = loss = 0;
      count = 0;
    }
  }

  /**
   * Computes the mean loss over {@code m} samples and writes its gradients (already divided by m).
   *
   * @param logits [M][A] current policy outputs
   * @param values [M] current value outputs
   * @param actions [M] taken actions
   * @param oldLogp [M] log-probability of the taken action under the rollout policy
   * @param adv [M] advantages (normalized by the caller if wanted)
   * @param returns [M] value targets
   * @param oldValues [M] rollout values (for the clipped value loss)
   * @param dLogits [M][A] output: dLoss/dlogits
   * @param dValues [M] output: dLoss/dvalues
   * @param ratioOut [M] output: the ratio r per sample (may be null)
   * @param stats accumulates sums of the terms (may be null)
   * @return the mean loss
   */
  public static double compute(int m, int a, float[] logits, float[] values, int[] actions, float[] oldLogp,
      float[] adv, float[] returns, float[] oldValues, Coefs c, float[] dLogits, float[] dValues,
      float[] ratioOut, Stats stats) {
    double inv = 1.0 / m, eps = c.clip();
    double total = 0;
    double[] logp = new double[a]; // small, once per call
    for (int k = 0; k < m; k++) {
      int o = k * a;
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < a; j++) max = Math.max(max, logits[o + j]);
      double sum = 0;
      for (int j = 0; j < a; j++) sum += Math.exp(logits[o + j] - max);
      double logZ = max + Math.log(sum);
      double h = 0;
      for (int j = 0; j < a; j++) {
        logp[j] = logits[o + j] - logZ;
        h -= Math.exp(logp[j]) * logp[j];
      }
      int act = actions[k];
      double logRatio = logp[act] - oldLogp[k];
      double r = Math.exp(logRatio);
      double A = adv[k];
      double pg1 = -A * r, pg2 = -A * Math.min(Math.max(r, 1 - eps), 1 + eps);
      double pg = Math.max(pg1, pg2);
      double dLogpA = pg1 >= pg2 ? -A * r : 0;

      double v = values[k], ret = returns[k];
      double vl, dv;
      if (c.clipValue()) {
        double diff = v - oldValues[k];
        double vc = oldValues[k] + Math.min(Math.max(diff, -eps), eps);
        double lu = (v - ret) * (v - ret), lc = (vc - ret) * (vc - ret);
        if (lu >= lc) {
          vl = 0.5 * lu;
          dv = v - ret;
        } else {
          vl = 0.5 * lc;
          dv = Math.abs(diff) < eps ? vc - ret : 0;
        }
      } else {
        vl = 0.5 * (v - ret) * (v - ret);
        dv = v - ret;
      }
      total += pg - c.entropyCoef() * h + c.valueCoef() * vl;

      for (int j = 0; j < a; j++) {
        double p = Math.exp(logp[j]);
        double g = dLogpA * ((j == act ? 1 : 0) - p) + c.entropyCoef() * p * (logp[j] + h);
        dLogits[o + j] = (float) (g * inv);
      }
      dValues[k] = (float) (c.valueCoef() * dv * inv);
      if (ratioOut != null) ratioOut[k] = (float) r;
      if (stats != null) {
        stats.policyLoss += pg;
        stats.valueLoss += vl;
        stats.entropy += h;
        stats.approxKl += (r - 1) - logRatio;
        stats.clipFrac += Math.abs(r - 1) > eps ? 1 : 0;
        stats.count++;
      }
    }
    if (stats != null) stats.loss += total;
    return total * inv;
  }
}
