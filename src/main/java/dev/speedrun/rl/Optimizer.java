package dev.speedrun.rl;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * What the trainer needs from an optimizer: one update of the policy's parameters from the
 * gradients accumulated in {@code params().grad}. The network engine's AdamW and Muon are adapted
 * to it in {@link Engine}.
 */
public interface Optimizer {
  /**
   * Clips the global gradient norm to the recipe's limit, applies one update with learning rate
   * {@code lr}, and returns the gradient norm before clipping. Does not zero the gradients.
   */
  float step(float lr);

  /** Writes everything that determines future updates (moments, step count). */
  void save(DataOutputStream out) throws IOException;

  void load(DataInputStream in) throws IOException;
}
