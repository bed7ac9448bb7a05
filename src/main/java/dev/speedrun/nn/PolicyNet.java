package dev.speedrun.nn;

/**
 * The contract between the network engine ({@code nn}) and its users (trainer, evaluator, web page):
 * a recurrent actor-critic over Boxoban observations.
 *
 * <p>Shapes (legend): N environments in a rollout; a training segment of T steps for B sequences,
 * stored time-major; O = 400 observation bytes (4 planes x 10 x 10, values 0/1); A = 5 actions;
 * S = {@link #stateSize()} floats of recurrent state per sequence (0 for a feed-forward policy).
 *
 * <p>Implementations allocate their activations once per (T, B) shape and reuse them; calls in the
 * hot path allocate nothing. Results are bit-identical for the same inputs and thread count.
 */
public interface PolicyNet {
  int numActions();

  /** Floats of recurrent state per sequence. */
  int stateSize();

  /** All parameters and gradients, in flat buffers. */
  Params params();

  /**
   * One rollout step for {@code n} environments. {@code obs}: [N][O]; {@code state}: [N][S], read
   * and overwritten with the next state (the caller zeroes a row when its episode ended);
   * writes {@code logits}: [N][A] and {@code values}: [N].
   */
  void step(byte[] obs, int n, float[] state, float[] logits, float[] values);

  /**
   * Training forward pass over a segment, keeping what {@link #backward} needs.
   * {@code obs}: [T][B][O]; {@code resetBefore}: [T][B], true where the state is zeroed before
   * step t (the previous step ended an episode); {@code h0}: [B][S], the state before step 0.
   * Writes {@code logits}: [T][B][A] and {@code values}: [T][B].
   */
  void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values);

  /**
   * Backpropagation through time for the last {@link #forward}: given dLoss/dlogits [T][B][A] and
   * dLoss/dvalues [T][B], ADDS the parameter gradients into {@code params().grad}.
   */
  void backward(float[] dLogits, float[] dValues);

  /**
   * Runs {@code net} (a throwaway policy) through {@code iterations} rounds of training forward,
   * backward and rollout step on a synthetic segment of T = {@code t} steps for B = {@code b}
   * sequences (sparse observations, one reset), so the JIT compiles its hot paths before a run's
   * clock starts; until then Vector API code runs in a slow fallback. The policies' {@code warmUp}s
   * call it on a policy of their run's configuration.
   */
  static void exercise(PolicyNet net, int t, int b, int iterations) {
    int rows = t * b, a = net.numActions(), s = net.stateSize();
    byte[] obs = new byte[rows * 400]; // [T][B][O]
    for (int i = 0; i < obs.length; i += 7) obs[i] = 1;
    boolean[] reset = new boolean[rows];
    reset[b + 1] = true;
    float[] h0 = new float[b * s], logits = new float[rows * a], values = new float[rows];
    float[] dl = new float[rows * a], dv = new float[rows], state = new float[b * s];
    java.util.Arrays.fill(dl, 1e-3f);
    java.util.Arrays.fill(dv, 1e-3f);
    for (int i = 0; i < iterations; i++) {
      net.forward(obs, reset, h0, t, b, logits, values);
      net.backward(dl, dv);
      net.step(obs, b, state, logits, values);
    }
  }
}
