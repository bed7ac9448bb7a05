package dev.speedrun.web;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.nn.Params;
import dev.speedrun.nn.PolicyNet;

/**
 * A tiny fake policy for tests: it plays a fixed script of actions, keeping its place in its
 * one-float recurrent state (so it also checks that the caller carries the state from step to step).
 * Logits: 3 for the scripted action, 0 for the others (after the script: noop). Value: 0.25 per box
 * on a target in the observation.
 */
final class ScriptedNet implements PolicyNet {
  private final int[] script;

  ScriptedNet(int[] script) {
    this.script = script.clone();
  }

  @Override public int numActions() { return BoxobanEnv.NUM_ACTIONS; }
  @Override public int stateSize() { return 1; }
  @Override public Params params() { return new Params(); }

  @Override
  public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
    for (int e = 0; e < n; e++) {
      int t = (int) state[e];
      int a = t < script.length ? script[t] : 0;
      for (int i = 0; i < 5; i++) logits[e * 5 + i] = i == a ? 3f : 0f;
      int home = 0, o = e * BoxobanEnv.OBS;
      for (int c = 0; c < BoxobanEnv.CELLS; c++) {
        if (obs[o + BoxobanEnv.PLANE_BOX * BoxobanEnv.CELLS + c] == 1 && obs[o + BoxobanEnv.PLANE_TARGET * BoxobanEnv.CELLS + c] == 1) home++;
      }
      values[e] = 0.25f * home;
      state[e] = t + 1;
    }
  }

  @Override
  public void forward(byte[] obs, boolean[] resetBefore, float[] h0, int t, int b, float[] logits, float[] values) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void backward(float[] dLogits, float[] dValues) {
    throw new UnsupportedOperationException();
  }
}
