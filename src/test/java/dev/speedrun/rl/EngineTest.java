package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.nn.ConvPolicy;
import dev.speedrun.nn.Muon;
import dev.speedrun.nn.PolicyNet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineTest {
  @Test
  void muonTakesTheHiddenMatricesOfADeeperConvPolicy() {
    Recipe r = Recipe.BASE.with(Map.of("policy", "conv", "channels", "4", "hidden", "8", "layers", "2", "convs", "4",
        "optimizer", "muon"));
    PolicyNet net = Engine.policy(r, 1);
    assertThat(((ConvPolicy) net).config().convs()).isEqualTo(4);
    Muon m = (Muon) Engine.optimizer(r, net);
    for (String t : new String[] {"conv2.weight", "conv3.weight", "conv4.weight", "proj.weight", "rnn.0.weight", "rnn.1.weight"}) {
      assertThat(m.orthogonalizes(t)).as(t).isTrue();
    }
    for (String t : new String[] {"conv1.weight", "conv3.bias", "proj.bias", "policy.weight", "value.weight"}) {
      assertThat(m.orthogonalizes(t)).as(t).isFalse();
    }
  }

  @Test
  void convsDefaultsToTwoAndOlderRunsReadAsTwo() {
    assertThat(Recipe.BASE.convs()).isEqualTo(2);
    assertThat(Recipe.fromStored(Map.of("policy", "conv")).convs()).isEqualTo(2);
    assertThat(((ConvPolicy) Engine.policy(Recipe.CONV, 1)).config().convs()).isEqualTo(2);
  }

  @Test
  void cropReachesThePolicyAndOlderRunsReadAsTheWholeBoard() {
    assertThat(Recipe.fromStored(Map.of("policy", "conv")).crop()).isFalse();
    assertThat(((ConvPolicy) Engine.policy(Recipe.CONV, 1)).config().crop()).isFalse();
    Recipe r = Recipe.CONV.with(Map.of("crop", "true"));
    ConvPolicy net = (ConvPolicy) Engine.policy(r, 1);
    assertThat(net.config().crop()).isTrue();
    assertThat(net.params().tensor("proj.weight").size()).isEqualTo(128 * 64 * 16);
  }
}
