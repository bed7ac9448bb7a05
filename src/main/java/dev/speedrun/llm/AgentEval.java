package dev.speedrun.llm;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.env.Rng;
import dev.speedrun.nn.Categorical;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * Our RL agent on the LLM track's puzzles, under the same protocol: k episodes per puzzle, each
 * board padded with walls to 10x10 at the top-left (as the environment does), actions sampled
 * from the policy's softmax (or argmax with {@code greedy}) until the first done (solve or
 * {@value #MAX_STEPS} steps). The answer is the action string played (U/D/L/R, noops dropped),
 * scored by the same {@link Reward} and summarized by the same {@link PassStats}.
 *
 * <p>Determinism: episode j of puzzle i draws from {@code Rng.mix(seed, i, j)}; all episodes run
 * as one batch of {@code puzzles * k} environments, so results depend on the seed and the policy's
 * bits only.
 */
public final class AgentEval {
  public static final int MAX_STEPS = 120;

  private AgentEval() {}

  public static LlmEval.Report run(List<Puzzle> puzzles, PolicyNet net, int k, long seed, boolean greedy) {
    if (k < 1) throw new IllegalArgumentException("k must be at least 1");
    int n = puzzles.size() * k;
    for (Puzzle p : puzzles) {
      if (p.level().width() > BoxobanEnv.SIDE || p.level().height() > BoxobanEnv.SIDE) {
        throw new dev.speedrun.UserError("puzzle at line " + p.line() + " is " + p.level().width() + "x"
            + p.level().height() + "; the agent plays boards up to 10x10");
      }
    }
    LevelSampler sampler = (env, episode) -> puzzles.get(env / k).level();
    BoxobanEnv env = new BoxobanEnv(n, sampler);
    env.reset();
    int a = net.numActions(), s = net.stateSize();
    float[] state = new float[n * s], logits = new float[n * a], values = new float[n];
    int[] actions = new int[n];
    boolean[] done = new boolean[n];
    Rng[] rngs = new Rng[n];
    StringBuilder[] moves = new StringBuilder[n];
    for (int e = 0; e < n; e++) {
      rngs[e] = new Rng(Rng.mix(seed, e / k, e % k));
      moves[e] = new StringBuilder();
    }
    int left = n;
    for (int t = 0; t < MAX_STEPS && left > 0; t++) {
      net.step(env.obs, n, state, logits, values);
      for (int e = 0; e < n; e++) {
        actions[e] = done[e] ? 0 : (greedy ? Categorical.argmax(logits, e * a, a) : Categorical.sample(logits, e * a, a, rngs[e].nextDouble()));
      }
      env.step(actions);
      for (int e = 0; e < n; e++) {
        if (done[e]) continue;
        Direction d = Direction.ofAction(actions[e]);
        if (d != null) moves[e].append(d.letter());
        if (env.dones[e]) {
          done[e] = true;
          left--;
          java.util.Arrays.fill(state, e * s, e * s + s, 0f);
        }
      }
    }
    List<LlmEval.PuzzleResult> results = new ArrayList<>(puzzles.size());
    int[] solved = new int[puzzles.size()], answered = new int[puzzles.size()];
    for (int i = 0; i < puzzles.size(); i++) {
      Level level = puzzles.get(i).level();
      List<String> answers = new ArrayList<>(k), reasons = new ArrayList<>(k);
      List<Reward.Result> rs = new ArrayList<>(k);
      for (int j = 0; j < k; j++) {
        String m = moves[i * k + j].toString();
        answers.add(m);
        Reward.Result r = Reward.replay(level, m);
        rs.add(r);
        // As a chat server would say: "stop" when the episode ended by a solve, "length" at 120 steps.
        reasons.add(r.solved() ? "stop" : "length");
        if (r.solved()) solved[i]++;
        answered[i]++;
      }
      results.add(new LlmEval.PuzzleResult(i, List.copyOf(answers), List.copyOf(reasons), List.copyOf(rs)));
    }
    return new LlmEval.Report(PassStats.of(solved, answered, k), results,
        LlmEval.NMode.SEEDS, 0, 0, 0);
  }
}
