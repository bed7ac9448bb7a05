package dev.speedrun.rl;

import dev.speedrun.UserError;
import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.env.Rng;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Level;
import java.util.List;

/**
 * Behaviour cloning from solutions: a warm start for a policy trained from scratch on puzzles whose
 * solutions are known (the LLM track's generated train puzzles carry a verified shortest answer).
 * Each minibatch is B solved puzzles played in a {@link BoxobanEnv} (the observations are exactly the
 * environment's); the policy runs over the T = longest-solution steps from a zero recurrent state and
 * is trained with the cross-entropy of the solution's action at every step of it (steps past a
 * puzzle's solution are masked), plus {@code valueCoef} x the squared error of the value against
 * {@code gamma^(steps to the solve)} (the solve's clamped reward), so that PPO can continue from it.
 *
 * <pre>
 *   loss = mean over valid (t, b) of [ -log softmax(logits[t][b])[a*] + valueCoef * 0.5 (v - gamma^(L_b - 1 - t))^2 ]
 *   dLoss/dlogits = (softmax - onehot(a*)) / count,   dLoss/dv = valueCoef (v - target) / count
 * </pre>
 *
 * Deterministic: the order of puzzles in each epoch is a shuffle seeded by (seed, epoch).
 */
public final class Imitation {
  private static final long SHUFFLE_SALT = 0x494D4954L;
  private static final int A = BoxobanEnv.NUM_ACTIONS, O = BoxobanEnv.OBS;

  private Imitation() {}

  /** Figures of one epoch: mean cross-entropy and accuracy of the argmax action over all valid steps. */
  public record Epoch(int epoch, double loss, double accuracy, long steps) {}

  /** Observer of finished epochs (logging). */
  public interface Listener {
    void epoch(Epoch e);
  }

  /**
   * Trains {@code net} with {@code opt} for {@code epochs} passes over the puzzles, minibatches of
   * {@code batch} puzzles, learning rate {@code lr} (cosine to 0 over all updates), gradient norm
   * clipped to {@code maxGradNorm} (0: no clip). {@code moves[i]} solves {@code levels[i]} (U/D/L/R).
   */
  public static Epoch train(PolicyNet net, Optimizer opt, List<Level> levels, List<String> moves, int epochs, int batch,
      float lr, float valueCoef, float gamma, float maxGradNorm, long seed, Listener listener) {
    if (levels.size() != moves.size()) throw new IllegalArgumentException("levels and moves differ in length");
    if (levels.isEmpty()) throw new UserError("imitation: no solved puzzles to learn from");
    int n = levels.size();
    int[][] acts = new int[n][];
    float[][] vt = new float[n][];
    for (int i = 0; i < n; i++) {
      String m = moves.get(i);
      acts[i] = new int[m.length()];
      vt[i] = new float[m.length()];
      for (int k = 0; k < m.length(); k++) {
        Direction d = Direction.ofLetter(m.charAt(k));
        if (d == null) throw new UserError("imitation: solution " + i + " has '" + m.charAt(k) + "', not one of U D L R");
        acts[i][k] = d.action();
        vt[i][k] = (float) Math.pow(gamma, m.length() - 1 - k);
      }
      if (acts[i].length == 0) throw new UserError("imitation: solution " + i + " is empty");
    }
    return train(net, opt, levels, acts, acts, vt, epochs, batch, lr, valueCoef, maxGradNorm, seed, listener);
  }

  /**
   * The general form: trajectory i starts on {@code levels[i]} and plays {@code played[i]}; at step t
   * the policy is taught action {@code targets[i][t]} (skipped when negative) and value
   * {@code valueTargets[i][t]} (skipped when NaN). With {@code played == targets} this is cloning of
   * solutions; with the policy's own actions as {@code played} and a solver's moves as targets it is
   * DAgger (Ross et al. 2011).
   */
  public static Epoch train(PolicyNet net, Optimizer opt, List<Level> levels, int[][] played, int[][] targets,
      float[][] valueTargets, int epochs, int batch, float lr, float valueCoef, float maxGradNorm, long seed, Listener listener) {
    int n = levels.size();
    if (n == 0) throw new UserError("imitation: no trajectories to learn from");
    int[][] acts = played;
    int t = 1;
    for (int[] a : played) t = Math.max(t, a.length);
    int b = Math.min(batch, n);
    int s = net.stateSize();
    BoxobanEnv env = new BoxobanEnv(b, (e, ep) -> levels.get(0));
    byte[] obs = new byte[t * b * O];
    boolean[] reset = new boolean[t * b];
    for (int j = 0; j < b; j++) reset[j] = true;
    float[] h0 = new float[b * s], logits = new float[t * b * A], values = new float[t * b];
    float[] dLogits = new float[t * b * A], dValues = new float[t * b];
    int[] stepActs = new int[b], perm = new int[n], rows = new int[b];
    for (int i = 0; i < n; i++) perm[i] = i;
    long updatesTotal = (long) epochs * ((n + b - 1) / b), update = 0;
    Epoch last = null;
    for (int ep = 0; ep < epochs; ep++) {
      Rng rng = new Rng(Rng.mix(seed ^ SHUFFLE_SALT, ep, 0));
      for (int i = n - 1; i > 0; i--) {
        int j = rng.nextInt(i + 1), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
      }
      double lossSum = 0;
      long correct = 0, count = 0;
      for (int start = 0; start < n; start += b) {
        int nb = Math.min(b, n - start);
        // Play the solutions; row j of the minibatch is puzzle perm[start + j] (the last minibatch repeats rows to fill B).
        for (int j = 0; j < b; j++) {
          rows[j] = perm[start + (j < nb ? j : j % nb)];
          env.load(j, levels.get(rows[j]));
        }
        int valid = 0;
        for (int step = 0; step < t; step++) {
          System.arraycopy(env.obs, 0, obs, step * b * O, b * O);
          for (int j = 0; j < b; j++) {
            int[] a = acts[rows[j]];
            stepActs[j] = step < a.length ? a[step] : 0;
            if (step < a.length && j < nb && targets[rows[j]][step] >= 0) valid++;
          }
          env.step(stepActs);
        }
        net.forward(obs, reset, h0, t, b, logits, values);
        java.util.Arrays.fill(dLogits, 0f);
        java.util.Arrays.fill(dValues, 0f);
        if (valid == 0) {
          update++;
          continue;
        }
        float inv = 1f / valid;
        for (int step = 0; step < t; step++) {
          for (int j = 0; j < nb; j++) {
            int[] a = acts[rows[j]];
            if (step >= a.length || targets[rows[j]][step] < 0) continue;
            int r = step * b + j, off = r * A;
            float max = logits[off];
            int best = 0;
            for (int k = 1; k < A; k++) {
              if (logits[off + k] > max) {
                max = logits[off + k];
                best = k;
              }
            }
            double sum = 0;
            for (int k = 0; k < A; k++) sum += Math.exp(logits[off + k] - max);
            int target = targets[rows[j]][step];
            lossSum += Math.log(sum) - (logits[off + target] - max);
            if (best == target) correct++;
            count++;
            for (int k = 0; k < A; k++) {
              float p = (float) (Math.exp(logits[off + k] - max) / sum);
              dLogits[off + k] = (p - (k == target ? 1f : 0f)) * inv;
            }
            float vt = valueTargets[rows[j]][step];
            if (!Float.isNaN(vt)) dValues[r] = valueCoef * (values[r] - vt) * inv;
          }
        }
        net.params().zeroGrad();
        net.backward(dLogits, dValues);
        Optimizer.clipGradNorm(net.params(), maxGradNorm > 0 ? maxGradNorm : Float.POSITIVE_INFINITY);
        float rate = (float) (lr * 0.5 * (1 + Math.cos(Math.PI * update / updatesTotal)));
        opt.step(rate);
        update++;
      }
      last = new Epoch(ep + 1, lossSum / Math.max(1, count), (double) correct / Math.max(1, count), count);
      if (listener != null) listener.epoch(last);
    }
    return last;
  }
}
