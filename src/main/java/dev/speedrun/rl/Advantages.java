package dev.speedrun.rl;

/**
 * Advantage estimation over a time-major rollout ([T][N] arrays, index {@code t * n + i}).
 *
 * <p>GAE (Schulman et al. 2016, arXiv:1506.02438) with optional V-trace importance weights
 * (Espeholt et al. 2018, arXiv:1802.01561), as PufferLib's {@code puff_advantage}: with ratio
 * r_t = pi(a_t|s_t) / mu(a_t|s_t), rho_t = min(rhoBar, r_t), c_t = min(cBar, r_t),
 *
 * <pre>
 *   delta_t = rho_t * (reward_t + gamma * V_{t+1} * (1 - done_t) - V_t)
 *   A_t     = delta_t + gamma * lambda * c_t * (1 - done_t) * A_{t+1}
 * </pre>
 *
 * With all ratios 1 (data seen for the first time) this is plain GAE. {@code done_t} means the
 * episode ended at step t (solve or the 120-step timeout: both terminal, no bootstrap). V_T is the
 * bootstrap value of the observation after the last step.
 */
public final class Advantages {
  private Advantages() {}

  /**
   * Writes advantages {@code adv} [T][N]; {@code ratio} may be null (all ones).
   *
   * @param rewards [T][N], already clamped
   * @param dones [T][N], true when step t ended the episode
   * @param values [T][N], V(s_t)
   * @param bootstrap [N], V(s_T)
   */
  public static void compute(int t, int n, float[] rewards, boolean[] dones, float[] values, float[] bootstrap,
      float[] ratio, float gamma, float lambda, float rhoBar, float cBar, float[] adv) {
    for (int i = 0; i < n; i++) {
      float last = 0f;
      for (int s = t - 1; s >= 0; s--) {
        int k = s * n + i;
        float nextV = s == t - 1 ? bootstrap[i] : values[k + n];
        float nonTerminal = dones[k] ? 0f : 1f;
        float rho = 1f, c = 1f;
        if (ratio != null) {
          rho = Math.min(rhoBar, ratio[k]);
          c = Math.min(cBar, ratio[k]);
        }
        float delta = rho * (rewards[k] + gamma * nextV * nonTerminal - values[k]);
        last = delta + gamma * lambda * c * nonTerminal * last;
        adv[k] = last;
      }
    }
  }
}
