package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.nn.AdamW;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.Solver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Behaviour cloning of known solutions: it learns them, deterministically, and its gradient is the cross-entropy's. */
class ImitationTest {
  static Recipe tiny() {
    return Recipe.BASE.with(Map.of("hidden", "64", "layers", "1"));
  }

  /** Easy 10x10 levels and a solution of each from the project's solver (checked by replay). */
  static void solved(int count, long seed, List<Level> levels, List<String> moves) {
    for (Level l : TrainingLevelsTest.padded(count, seed)) {
      String m = new Solver(l).solve(100_000, 5_000).moves();
      Game g = new Game(l);
      g.play(m);
      assertThat(g.isSolved()).isTrue();
      levels.add(l);
      moves.add(m);
    }
  }

  @Test
  void learnsToReproduceTheSolutionsAndIsDeterministic() {
    List<Level> levels = new ArrayList<>();
    List<String> moves = new ArrayList<>();
    solved(60, 11, levels, moves);
    PolicyNet a = Engine.policy(tiny(), 3), b = Engine.policy(tiny(), 3);
    double before = Trainer.validate(a, levels);
    List<Imitation.Epoch> log = new ArrayList<>();
    Imitation.train(a, new AdamW(a.params(), AdamW.Config.DEFAULT), levels, moves, 30, 16, 0.01f, 0.5f, 0.97f, 0.5f, 5, log::add);
    Imitation.Epoch last = Imitation.train(b, new AdamW(b.params(), AdamW.Config.DEFAULT), levels, moves, 30, 16, 0.01f, 0.5f, 0.97f,
        0.5f, 5, null);
    System.out.printf("imitation test: loss %.3f -> %.3f, accuracy %.3f, greedy solve %.3f -> %.3f%n", log.get(0).loss(), last.loss(),
        last.accuracy(), before, Trainer.validate(a, levels));
    assertThat(log).hasSize(30);
    assertThat(log.get(0).loss()).isGreaterThan(1.2); // about ln 5 = 1.61 untrained
    assertThat(last.loss()).isLessThan(log.get(0).loss() / 2);
    assertThat(last.accuracy()).isGreaterThan(0.8);
    assertThat(last.steps()).isEqualTo(moves.stream().mapToInt(String::length).sum());
    assertThat(last).isEqualTo(log.get(29));
    assertThat(a.params().data).isEqualTo(b.params().data);
    // Greedy play of the cloned policy solves clearly more of its training puzzles than before.
    assertThat(Trainer.validate(a, levels)).isGreaterThan(Math.max(0.3, before + 0.2));
  }

  @Test
  void gradientIsTheMeanCrossEntropysAgainstFiniteDifferences() {
    List<Level> levels = new ArrayList<>();
    List<String> moves = new ArrayList<>();
    solved(3, 12, levels, moves);
    PolicyNet net = Engine.policy(tiny(), 4);
    float[] before = net.params().data.clone();
    // One update of plain SGD (lr 1, no clip) moves the parameters by minus the gradient.
    float[] grad = new float[before.length];
    dev.speedrun.nn.Optimizer sgd = new dev.speedrun.nn.Optimizer() {
      @Override public void step(float lr) { System.arraycopy(net.params().grad, 0, grad, 0, grad.length); }
      @Override public long steps() { return 0; }
      @Override public void setSteps(long s) {}
      @Override public Map<String, float[]> state() { return Map.of(); }
    };
    Imitation.train(net, sgd, levels, moves, 1, 3, 1f, 0f, 0.97f, 0f, 1, null);
    assertThat(net.params().data).isEqualTo(before);
    int checked = 0;
    for (int i = 0; i < grad.length && checked < 6; i += 97) {
      if (grad[i] == 0f) continue;
      double h = 1e-2;
      float x = net.params().data[i];
      net.params().data[i] = (float) (x + h);
      double up = loss(net, levels, moves);
      net.params().data[i] = (float) (x - h);
      double down = loss(net, levels, moves);
      net.params().data[i] = x;
      assertThat(grad[i]).as("parameter %d", i).isCloseTo((float) ((up - down) / (2 * h)), org.assertj.core.data.Offset.offset(2e-3f + 0.05f * Math.abs(grad[i])));
      checked++;
    }
    assertThat(checked).isGreaterThan(2);
  }

  /** Mean cross-entropy of the solutions under the policy, computed by stepping it move by move in double. */
  static double loss(PolicyNet net, List<Level> levels, List<String> moves) {
    double sum = 0;
    int count = 0;
    for (int i = 0; i < levels.size(); i++) {
      dev.speedrun.env.BoxobanEnv env = new dev.speedrun.env.BoxobanEnv(1, (e, ep) -> levels.get(0));
      env.load(0, levels.get(i));
      float[] st = new float[net.stateSize()], lg = new float[5], v = new float[1];
      for (char c : moves.get(i).toCharArray()) {
        net.step(env.obs, 1, st, lg, v);
        int a = dev.speedrun.sokoban.Direction.ofLetter(c).action();
        double max = Arrays.stream(new double[] {lg[0], lg[1], lg[2], lg[3], lg[4]}).max().getAsDouble(), z = 0;
        for (float l : lg) z += Math.exp(l - max);
        sum += Math.log(z) - (lg[a] - max);
        count++;
        env.step(new int[] {a});
      }
    }
    return sum / count;
  }

  @Test
  void badSolutionsAreUserErrors() {
    List<Level> levels = TrainingLevelsTest.padded(1, 13);
    PolicyNet net = Engine.policy(tiny(), 1);
    AdamW opt = new AdamW(net.params(), AdamW.Config.DEFAULT);
    assertThatThrownBy(() -> Imitation.train(net, opt, levels, List.of("UX"), 1, 1, 0.01f, 0.5f, 0.97f, 0.5f, 1, null))
        .isInstanceOf(UserError.class).hasMessageContaining("'X'");
    assertThatThrownBy(() -> Imitation.train(net, opt, List.of(), List.of(), 1, 1, 0.01f, 0.5f, 0.97f, 0.5f, 1, null))
        .isInstanceOf(UserError.class);
  }
}
