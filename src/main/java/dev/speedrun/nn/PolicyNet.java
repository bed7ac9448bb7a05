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
}
