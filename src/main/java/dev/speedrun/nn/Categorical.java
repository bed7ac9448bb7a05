package dev.speedrun.nn;

/**
 * The categorical policy head over logits[A] at an offset: log-softmax, entropy, sampling from a
 * uniform number the caller draws from its own seeded stream, and argmax (greedy evaluation).
 * All in float with the max subtracted first; the first index wins ties.
 */
public final class Categorical {
  private Categorical() {}

  /** out[off..off+a) = logits - logsumexp(logits). */
  public static void logSoftmax(float[] logits, int off, int a, float[] out, int outOff) {
    float max = logits[off];
    for (int k = 1; k < a; k++) max = Math.max(max, logits[off + k]);
    double sum = 0;
    for (int k = 0; k < a; k++) sum += Math.exp(logits[off + k] - max);
    float ls = (float) Math.log(sum);
    for (int k = 0; k < a; k++) out[outOff + k] = (logits[off + k] - max) - ls; // max first: exact for large logits
  }

  /** -sum p log p. */
  public static float entropy(float[] logits, int off, int a) {
    float max = logits[off];
    for (int k = 1; k < a; k++) max = Math.max(max, logits[off + k]);
    double sum = 0, dot = 0;
    for (int k = 0; k < a; k++) {
      double e = Math.exp(logits[off + k] - max);
      sum += e;
      dot += e * (logits[off + k] - max);
    }
    return (float) (Math.log(sum) - dot / sum);
  }

  /** The action whose cumulative probability first exceeds {@code u} in [0, 1). */
  public static int sample(float[] logits, int off, int a, double u) {
    float max = logits[off];
    for (int k = 1; k < a; k++) max = Math.max(max, logits[off + k]);
    double sum = 0;
    for (int k = 0; k < a; k++) sum += Math.exp(logits[off + k] - max);
    double target = u * sum, acc = 0;
    for (int k = 0; k < a; k++) {
      acc += Math.exp(logits[off + k] - max);
      if (target < acc) return k;
    }
    return a - 1;
  }

  public static int argmax(float[] logits, int off, int a) {
    int best = 0;
    for (int k = 1; k < a; k++) if (logits[off + k] > logits[off + best]) best = k;
    return best;
  }
}
