package dev.speedrun.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvaluatorTest {
  static Path boxoban() {
    return dev.speedrun.sokoban.LevelSources.sharedDir().resolve("data/boxoban");
  }

  static Level xsb(String s) {
    return Formats.parseXsb(s, "test");
  }

  // One box, push right once / twice to solve.
  static final Level ONE = xsb("#####\n#@$.#\n#####");
  static final Level TWO = xsb("######\n#@ $.#\n######");
  static final Level TWO_B = xsb("######\n# @$.#\n#    #\n######");
  static final Level UP = xsb("###\n#.#\n#$#\n#@#\n###");

  @Test
  void greedyOnTheTestSplitMatchesAnIndependentSimulation() {
    LevelSet set = LevelSet.load(boxoban(), "unfiltered/test");
    List<Level> levels = set.entries.stream().map(LevelSet.Entry::level).toList();
    Evaluator.Outcome out = Evaluator.play(levels, TestNets.RuleNet::new, Evaluator.Options.greedy(2));
    int solved = 0;
    for (int i = 0; i < levels.size(); i++) {
      int[] ref = simulateRule(levels.get(i));
      assertThat(out.solved()[i]).as("level %d solved", i).isEqualTo(ref[0]);
      assertThat(out.steps()[i][0]).as("level %d steps", i).isEqualTo(ref[1]);
      solved += ref[0];
    }
    assertThat(out.levels()).isEqualTo(1000);
    // The layout (threads, batch) does not change any result.
    Evaluator.Outcome one = Evaluator.play(levels, TestNets.RuleNet::new, new Evaluator.Options(1, 0, 0, 1, 7));
    assertThat(one.solved()).isEqualTo(out.solved());
    assertThat(one.steps()).isDeepEqualTo(out.steps());
    System.out.println("rule policy solves " + solved + " of 1000 test levels");
  }

  /** The rule policy played with sokoban.Game: {solved 0/1, steps}. */
  static int[] simulateRule(Level level) {
    Game g = new Game(level);
    for (int t = 1; t <= 120; t++) {
      int boxSum = 0;
      for (int c = 0; c < level.size(); c++) if (g.hasBox(c)) boxSum += c;
      g.move(Direction.ofAction(TestNets.RuleNet.rule(g.player(), boxSum)));
      if (g.isSolved()) return new int[] {1, t};
    }
    return new int[] {0, 120};
  }

  @Test
  void replaysKnownSolutionsLevelByLevelWithoutAutoResetInterference() {
    Map<Level, String> sol = new LinkedHashMap<>();
    sol.put(ONE, "R");
    sol.put(TWO, "RR");
    sol.put(TWO_B, "R"); // one push from the start square
    sol.put(UP, "L"); // wrong: blocked forever, then noops -> timeout
    TestNets.ReplayNet net = new TestNets.ReplayNet(sol);
    List<Level> levels = new ArrayList<>();
    for (int r = 0; r < 5; r++) levels.addAll(List.of(ONE, TWO, TWO_B, UP));
    for (int batch : new int[] {1, 3, 64}) {
      for (int threads : new int[] {1, 2}) {
        Evaluator.Outcome out = Evaluator.play(levels, () -> net, new Evaluator.Options(1, 0, 0, threads, batch));
        for (int i = 0; i < levels.size(); i++) {
          int[] expect = switch (i % 4) {
            case 0 -> new int[] {1, 1};
            case 1 -> new int[] {1, 2};
            case 2 -> new int[] {1, 1};
            default -> new int[] {0, 120};
          };
          assertThat(new int[] {out.solved()[i], out.steps()[i][0]}).as("batch %d threads %d level %d", batch, threads, i)
              .containsExactly(expect);
        }
      }
    }
  }

  @Test
  void sampledPassAtKMatchesTheGeometricLaw() {
    // Only "right" (action 4) changes ONE, and it solves it. P(right) = q per step, so a sample
    // solves within 120 steps with probability 1 - (1-q)^120, at step t with q (1-q)^(t-1).
    double q = 0.01;
    float logit = (float) Math.log(4 * q / (1 - q)); // softmax: e^l / (e^l + 4) = q
    List<Level> levels = java.util.Collections.nCopies(400, ONE);
    Evaluator.Options o = Evaluator.Options.sampled(5, 1.0, 99, 2);
    Evaluator.Outcome out = Evaluator.play(levels, () -> new TestNets.ConstNet(4, logit), o);
    double p1 = 1 - Math.pow(1 - q, 120); // 0.7006
    long solved = 0, anySolved = 0;
    for (int i = 0; i < 400; i++) {
      solved += out.solved()[i];
      if (out.solved()[i] > 0) anySolved++;
      int unsolved = 0;
      for (int s : out.steps()[i]) {
        assertThat(s).isBetween(1, 120);
        if (s == 120) unsolved++;
      }
      // A sample that ran to 120 steps failed unless its very last step was the push.
      assertThat(out.solved()[i]).isBetween(5 - unsolved, 5);
    }
    // 2000 samples: sd = sqrt(0.7 * 0.3 / 2000) = 0.0102; allow 4 sd.
    assertThat(solved / 2000.0).isCloseTo(p1, within(0.041));
    // pass@5 = 1 - 0.2994^5 = 0.9976; 400 levels: allow 0.012.
    assertThat(anySolved / 400.0).isCloseTo(1 - Math.pow(1 - p1, 5), within(0.012));
    // Seeded per (level, sample): the layout does not matter; the seed does.
    Evaluator.Outcome other = Evaluator.play(levels, () -> new TestNets.ConstNet(4, logit), new Evaluator.Options(5, 1.0, 99, 1, 5));
    assertThat(other.steps()).isDeepEqualTo(out.steps());
    Evaluator.Outcome reseeded = Evaluator.play(levels, () -> new TestNets.ConstNet(4, logit), Evaluator.Options.sampled(5, 1.0, 100, 2));
    assertThat(reseeded.steps()).isNotEqualTo(out.steps());
  }

  @Test
  void argmaxTakesTheLowestIndexOnTies() {
    assertThat(Evaluator.argmax(new float[] {9, 1, 3, 3, 2, 0}, 1, 5)).isEqualTo(1);
    assertThat(Evaluator.argmax(new float[] {0, 0, 0, 0, 0}, 0, 5)).isEqualTo(0);
    assertThat(Evaluator.argmax(new float[] {0, -1, 5, 5, 4}, 0, 5)).isEqualTo(2);
  }
}
