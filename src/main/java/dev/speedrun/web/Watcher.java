package dev.speedrun.web;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;

/**
 * Runs a policy greedily on one level, as the evaluation does (argmax action, episode ends on a
 * solve or at 120 steps), recording what the page shows beside the board at every step: the
 * action probabilities (softmax of the logits) and the value estimate.
 */
public final class Watcher {
  private Watcher() {}

  /** One step: the action taken (0 noop, 1 down, 2 up, 3 left, 4 right), its probabilities and the value before it. */
  public record Step(int action, float[] probs, float value) {}

  /** A watched episode: steps in order; solved, and the 1-based step where it ended (0 if it did not). */
  public record Episode(java.util.List<Step> steps, boolean solved, int doneAt) {}

  public static Episode run(PolicyNet net, Level level) {
    if (level.width() > BoxobanEnv.SIDE || level.height() > BoxobanEnv.SIDE) {
      throw HttpError.badRequest("the agent plays boards up to 10x10; this one is " + level.width() + "x" + level.height());
    }
    int a = net.numActions();
    if (a != BoxobanEnv.NUM_ACTIONS) throw new HttpError(422, "policy has " + a + " actions, expected " + BoxobanEnv.NUM_ACTIONS);
    BoxobanEnv env = new BoxobanEnv(1, (e, ep) -> level);
    env.load(0, level);
    int maxSteps = BoxobanEnv.Rewards.DEFAULT.maxSteps();
    float[] state = new float[net.stateSize()];
    float[] logits = new float[a];
    float[] values = new float[1];
    int[] actions = new int[1];
    java.util.List<Step> steps = new java.util.ArrayList<>();
    synchronized (net) {
      for (int t = 0; t < maxSteps; t++) {
        net.step(env.obs, 1, state, logits, values);
        int best = 0;
        for (int i = 1; i < a; i++) if (logits[i] > logits[best]) best = i;
        steps.add(new Step(best, softmax(logits), values[0]));
        actions[0] = best;
        env.step(actions);
        if (env.dones[0]) return new Episode(steps, env.lastSolved[0], t + 1);
      }
    }
    return new Episode(steps, false, 0); // not reached: the env ends every episode at maxSteps
  }

  static float[] softmax(float[] logits) {
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) max = Math.max(max, l);
    double[] e = new double[logits.length];
    double sum = 0;
    for (int i = 0; i < logits.length; i++) sum += e[i] = Math.exp(logits[i] - max);
    float[] p = new float[logits.length];
    for (int i = 0; i < logits.length; i++) p[i] = (float) (e[i] / sum);
    return p;
  }
}
