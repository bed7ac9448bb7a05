package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.nn.Params;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Game;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentEvalTest {
  static final List<Puzzle> PUZZLES = Datasets.read(SharedData.llmEval()).subList(0, 40);

  /**
   * A scripted "policy": its recurrent state counts steps, and it puts a large logit on the next
   * letter of a given move string for the puzzle of each environment (env e plays puzzle e / k).
   */
  static final class Scripted implements PolicyNet {
    final List<String> plans;
    final int k;
    final float margin;

    Scripted(List<String> plans, int k, float margin) {
      this.plans = plans;
      this.k = k;
      this.margin = margin;
    }

    @Override public int numActions() { return 5; }
    @Override public int stateSize() { return 1; }
    @Override public Params params() { throw new UnsupportedOperationException(); }

    @Override
    public void step(byte[] obs, int n, float[] state, float[] logits, float[] values) {
      for (int e = 0; e < n; e++) {
        String plan = plans.get(e / k);
        int t = (int) state[e];
        java.util.Arrays.fill(logits, e * 5, e * 5 + 5, 0f);
        int action = t < plan.length() ? Direction.ofLetter(plan.charAt(t)).action() : 0;
        logits[e * 5 + action] = margin;
        state[e] = t + 1;
        values[e] = 0;
      }
    }

    @Override public void forward(byte[] o, boolean[] r, float[] h, int t, int b, float[] l, float[] v) { throw new UnsupportedOperationException(); }
    @Override public void backward(float[] dl, float[] dv) { throw new UnsupportedOperationException(); }
  }

  @Test
  void aPolicyPlayingTheGoldAnswersSolvesEveryPuzzleAndItsAnswerIsWhatItPlayed() {
    List<String> gold = PUZZLES.stream().map(Puzzle::answer).toList();
    LlmEval.Report r = AgentEval.run(PUZZLES, new Scripted(gold, 3, 100f), 3, 12345, false);
    assertThat(r.stats().pass1()).isEqualTo(1.0);
    assertThat(r.stats().answerRate()).isEqualTo(1.0);
    for (LlmEval.PuzzleResult p : r.puzzles()) {
      assertThat(p.completions()).containsOnly(gold.get(p.index()));
    }
  }

  @Test
  void anAnswerStopsAtTheFirstDoneAndIsScoredByReplay() {
    // Plans: the gold answer followed by moves that would undo it; the episode ends at the solve,
    // so the extra moves are never played.
    List<String> plans = PUZZLES.stream().map(p -> p.answer() + "UUDDLLRR").toList();
    LlmEval.Report r = AgentEval.run(PUZZLES, new Scripted(plans, 1, 100f), 1, 1, true);
    assertThat(r.stats().pass1()).isEqualTo(1.0);
    assertThat(r.stats().interval()).isEqualTo("wilson");
    assertThat(r.puzzles().get(0).completions()).containsExactly(PUZZLES.get(0).answer());
    // A plan that never solves runs for exactly 120 steps (noops after it ends are not letters).
    List<String> wander = PUZZLES.stream().map(p -> "UD".repeat(100)).toList();
    LlmEval.Report w = AgentEval.run(PUZZLES.subList(0, 2), new Scripted(wander, 1, 100f), 1, 1, true);
    assertThat(w.puzzles().get(0).completions().get(0)).hasSize(AgentEval.MAX_STEPS);
    assertThat(w.stats().pass1()).isZero();
  }

  @Test
  void samplingIsDeterministicFromTheSeedAndMatchesAnIndependentReplay() {
    // Flat logits: uniform random walks. Same seed, same answers; another seed, other answers.
    List<String> none = PUZZLES.stream().map(p -> "").toList();
    LlmEval.Report a = AgentEval.run(PUZZLES, new Scripted(none, 4, 0f), 4, 12345, false);
    LlmEval.Report b = AgentEval.run(PUZZLES, new Scripted(none, 4, 0f), 4, 12345, false);
    LlmEval.Report c = AgentEval.run(PUZZLES, new Scripted(none, 4, 0f), 4, 99, false);
    assertThat(a.puzzles()).isEqualTo(b.puzzles());
    assertThat(a.puzzles()).isNotEqualTo(c.puzzles());
    for (LlmEval.PuzzleResult p : a.puzzles()) {
      Puzzle pz = PUZZLES.get(p.index());
      for (int j = 0; j < 4; j++) {
        String m = p.completions().get(j);
        assertThat(m.length()).isLessThanOrEqualTo(AgentEval.MAX_STEPS);
        boolean solved = new Game(pz.level()).play(m).isSolved();
        assertThat(p.results().get(j).solved()).isEqualTo(solved);
        // Noops (1 in 5 here) are steps without letters.
        if (!solved) assertThat(m.length()).isLessThan(AgentEval.MAX_STEPS);
      }
    }
    assertThat(BoxobanEnv.SIDE).isEqualTo(10);
  }
}
