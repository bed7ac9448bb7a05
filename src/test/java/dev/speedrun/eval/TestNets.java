package dev.speedrun.eval;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.nn.Params;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Tiny policies for testing the evaluator without a trained network. */
final class TestNets {
  private TestNets() {}

  private abstract static class Base implements PolicyNet {
    @Override public int numActions() { return 5; }
    @Override public int stateSize() { return 0; }
    @Override public Params params() { throw new UnsupportedOperationException(); }
    @Override public void forward(byte[] obs, boolean[] r, float[] h0, int t, int b, float[] logits, float[] values) {
      throw new UnsupportedOperationException();
    }
    @Override public void backward(float[] dLogits, float[] dValues) { throw new UnsupportedOperationException(); }
  }

  /**
   * A fixed rule of the observation: action = 1 + (agentCell * 7 + sum of box cells) mod 4, as a
   * one-hot logit. {@link #rule(int, int)} is the same rule for an independent simulator.
   */
  static final class RuleNet extends Base {
    @Override
    public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
      for (int i = 0; i < n; i++) {
        int o = i * BoxobanEnv.OBS, agent = -1, boxSum = 0;
        for (int c = 0; c < BoxobanEnv.CELLS; c++) {
          if (obs[o + c] == 1) agent = c;
          if (obs[o + BoxobanEnv.PLANE_BOX * BoxobanEnv.CELLS + c] == 1) boxSum += c;
        }
        for (int a = 0; a < 5; a++) logits[i * 5 + a] = 0;
        logits[i * 5 + rule(agent, boxSum)] = 1;
        values[i] = 0;
      }
    }

    static int rule(int agentCell, int boxCellSum) {
      return 1 + (agentCell * 7 + boxCellSum) % 4;
    }
  }

  /**
   * Replays a known move string per starting board. State: [board id + 1, steps taken]; a zero
   * state means "new episode: identify the board" — so a state not zeroed between episodes shows.
   * Boards it does not know, and moves past the end of a solution, get noops.
   */
  static final class ReplayNet extends Base {
    private final Map<String, Integer> ids = new HashMap<>();
    private final String[] moves;

    ReplayNet(Map<Level, String> solutions) {
      moves = new String[solutions.size()];
      int k = 0;
      for (Map.Entry<Level, String> e : solutions.entrySet()) {
        ids.put(key(startObs(e.getKey()), 0), k);
        moves[k++] = e.getValue();
      }
    }

    static byte[] startObs(Level level) {
      BoxobanEnv env = new BoxobanEnv(1, (e, ep) -> level);
      env.reset();
      return env.obs.clone();
    }

    private static String key(byte[] obs, int i) {
      return new String(obs, i * BoxobanEnv.OBS, BoxobanEnv.OBS, StandardCharsets.ISO_8859_1);
    }

    @Override public int stateSize() { return 2; }

    @Override
    public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
      for (int i = 0; i < n; i++) {
        if (state[i * 2] == 0) state[i * 2] = ids.getOrDefault(key(obs, i), -2) + 1; // -1: unknown
        int id = (int) state[i * 2] - 1;
        int t = (int) state[i * 2 + 1];
        int action = 0;
        if (id >= 0 && t < moves[id].length()) action = dev.speedrun.sokoban.Direction.ofLetter(moves[id].charAt(t)).action();
        state[i * 2 + 1] = t + 1;
        for (int a = 0; a < 5; a++) logits[i * 5 + a] = a == action ? 1 : 0;
        values[i] = 0;
      }
    }
  }

  /** Constant logits: 0 for every action but {@code action}, which gets {@code logit}. */
  static final class ConstNet extends Base {
    private final int action;
    private final float logit;

    ConstNet(int action, float logit) {
      this.action = action;
      this.logit = logit;
    }

    @Override
    public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
      for (int i = 0; i < n; i++) {
        for (int a = 0; a < 5; a++) logits[i * 5 + a] = a == action ? logit : 0;
        values[i] = 0;
      }
    }
  }
}
