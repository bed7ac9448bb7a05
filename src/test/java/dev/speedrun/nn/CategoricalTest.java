package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.env.Rng;
import org.junit.jupiter.api.Test;

class CategoricalTest {
  @Test
  void logSoftmaxAndEntropyMatchHandValues() {
    float[] l = {9f, 0f, 0f, 0f, 0f, 0f}; // offset 1: five equal logits
    float[] out = new float[5];
    Categorical.logSoftmax(l, 1, 5, out, 0);
    for (float v : out) assertThat(v).isCloseTo((float) -Math.log(5), within(1e-6f));
    assertThat(Categorical.entropy(l, 1, 5)).isCloseTo((float) Math.log(5), within(1e-6f));
    float[] peaked = {100f, 0f, 0f};
    assertThat(Categorical.entropy(peaked, 0, 3)).isCloseTo(0f, within(1e-6f));
    float[] big = {1000f, 999f}; // no overflow
    Categorical.logSoftmax(big, 0, 2, out, 0);
    assertThat(out[0]).isCloseTo((float) -Math.log1p(Math.exp(-1)), within(1e-5f));
  }

  @Test
  void samplingFollowsTheProbabilities() {
    float[] l = {0f, (float) Math.log(3), (float) Math.log(6)}; // probabilities 0.1, 0.3, 0.6
    int[] counts = new int[3];
    Rng rng = new Rng(7);
    int n = 200_000;
    for (int i = 0; i < n; i++) counts[Categorical.sample(l, 0, 3, rng.nextDouble())]++;
    assertThat(counts[0] / (double) n).isCloseTo(0.1, within(0.005));
    assertThat(counts[1] / (double) n).isCloseTo(0.3, within(0.005));
    assertThat(counts[2] / (double) n).isCloseTo(0.6, within(0.005));
    assertThat(Categorical.sample(l, 0, 3, 0.0)).isZero();
    assertThat(Categorical.sample(l, 0, 3, 0.9999999)).isEqualTo(2);
  }

  @Test
  void argmaxTakesTheFirstOfTies() {
    assertThat(Categorical.argmax(new float[] {1f, 3f, 3f, 2f}, 0, 4)).isEqualTo(1);
    assertThat(Categorical.argmax(new float[] {5f, 1f, 2f}, 1, 2)).isEqualTo(1);
  }
}
