package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.nn.PolicyNet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrainerTest {
  /**
   * With a zero learning rate the training forward must reproduce the rollout's log-probabilities
   * (same parameters, same states, resets in the same places): approx-KL and clip fraction ~ 0.
   */
  @Test
  void trainingForwardReproducesRollout() {
    Recipe r = TrainingRunTest.small(Map.of("learningRate", "0", "epochs", "1", "horizon", "64"));
    PolicyNet net = Engine.policy(r, 1);
    // Make the policy far from uniform so that mismatches would show.
    for (int k = 0; k < net.params().size(); k++) net.params().data[k] *= 30;
    Trainer tr = new Trainer(r, 1, net, Engine.optimizer(r, net), LevelSampler.uniform(TrainingRunTest.EASY, 1));
    for (int i = 0; i < 3; i++) {
      Trainer.Metrics m = tr.iterate();
      System.out.println(m);
      assertThat(m.episodes()).isGreaterThan(0);
      assertThat(m.approxKl()).isLessThan(1e-6);
      assertThat(m.clipFrac()).isZero();
    }
  }
}
