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

  /** Draws are distinct, follow the segments' summed |advantage|, and carry (N p)^-beta. */
  @Test
  void prioritizedDrawsFollowTheAdvantages() {
    int t = 3, n = 8;
    float[] adv = new float[t * n];
    // Only segments 1, 4, 6 have advantages: |.| sums 3, 6, 3.
    for (int step = 0; step < t; step++) {
      adv[step * n + 1] = step % 2 == 0 ? 1f : -1f;
      adv[step * n + 4] = -2f;
      adv[step * n + 6] = 1f;
    }
    int[] out = new int[n];
    float[] w = new float[n];
    double[] score = new double[n];
    boolean[] taken = new boolean[n];
    Trainer.drawPrioritized(adv, t, n, 1.0, 0.5, new dev.speedrun.env.Rng(7), out, 2, 3, w, score, taken);
    assertThat(java.util.Arrays.copyOfRange(out, 2, 5)).containsExactlyInAnyOrder(1, 4, 6);
    for (int j = 0; j < 3; j++) {
      double p = (out[2 + j] == 4 ? 6 : 3) / 12.0;
      assertThat((double) w[j]).isCloseTo(Math.pow(n * p, -0.5), org.assertj.core.data.Offset.offset(1e-5));
    }
    // Single draws: frequencies 1/4, 1/2, 1/4 (alpha 1), none of the zero segments.
    int[] hits = new int[n];
    dev.speedrun.env.Rng rng = new dev.speedrun.env.Rng(11);
    for (int k = 0; k < 20_000; k++) {
      Trainer.drawPrioritized(adv, t, n, 1.0, 0.5, rng, out, 0, 1, w, score, taken);
      hits[out[0]]++;
    }
    assertThat(hits[0] + hits[2] + hits[3] + hits[5] + hits[7]).isZero();
    assertThat(hits[4] / 20_000.0).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.02));
    assertThat(hits[1] / 20_000.0).isCloseTo(0.25, org.assertj.core.data.Offset.offset(0.02));
    // Alpha 0: every segment equally likely, all weights 1; a full draw is a permutation.
    Trainer.drawPrioritized(adv, t, n, 0.0, 0.5, new dev.speedrun.env.Rng(3), out, 0, n, w, score, taken);
    assertThat(out).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    for (float x : w) assertThat((double) x).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
  }

  /** Scaled, then clamped: at 0.1 a solve (its step earns 10.9) stays worth ten boxes; at 1 it is clamped to one. */
  @Test
  void trainingRewardsAreScaledThenClamped() {
    org.assertj.core.data.Offset<Float> eps = org.assertj.core.data.Offset.offset(1e-6f);
    // The benchmark's rewards: a target 0.25, the solve 1 (1.25 with a target on the same step), the timeout -1.
    assertThat(Trainer.trainingReward(0.25f, 1f, 1f)).isEqualTo(0.25f);
    assertThat(Trainer.trainingReward(1.25f, 1f, 1f)).isEqualTo(1f);
    assertThat(Trainer.trainingReward(-1f, 1f, 1f)).isEqualTo(-1f);
    assertThat(Trainer.trainingReward(-3f, 1f, 1f)).isEqualTo(-1f);
    assertThat(Trainer.trainingReward(0.25f, 0.1f, 1f)).isCloseTo(0.025f, eps);
    assertThat(Trainer.trainingReward(1.25f, 0.1f, 1f)).isCloseTo(0.125f, eps);
    assertThat(Trainer.trainingReward(-1f, 0.1f, 1f)).isCloseTo(-0.1f, eps);
    assertThat(Trainer.trainingReward(30f, 0.1f, 2f)).isEqualTo(2f);
  }
}
