package dev.speedrun.nn;

import java.util.Map;

/**
 * An optimizer over a {@link Params}' flat buffers: {@link #step} reads {@code params.grad} and
 * updates {@code params.data} in place. Its state is a few float arrays of the parameters' size
 * (exposed live by {@link #state()} so the trainer can checkpoint and restore them) plus a step count.
 */
public interface Optimizer {
  /** One update with learning rate {@code lr}; does not zero the gradients. */
  void step(float lr);

  /** Updates taken so far (Adam's bias correction uses it). */
  long steps();

  void setSteps(long steps);

  /** The state arrays by name, live (write into them to restore a checkpoint). */
  Map<String, float[]> state();

  /**
   * Global gradient-norm clipping: scales all gradients by {@code maxNorm / norm} when the L2 norm
   * over every parameter exceeds {@code maxNorm}. Returns the norm before clipping (summed in double).
   */
  static float clipGradNorm(Params p, float maxNorm) {
    double ss = 0;
    float[] g = p.grad;
    for (int i = 0; i < p.size(); i++) ss += (double) g[i] * g[i];
    float norm = (float) Math.sqrt(ss);
    if (norm > maxNorm && norm > 0) {
      float s = maxNorm / norm;
      for (int i = 0; i < p.size(); i++) g[i] *= s;
    }
    return norm;
  }
}
