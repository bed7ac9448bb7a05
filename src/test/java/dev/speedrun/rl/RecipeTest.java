package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecipeTest {
  @Test
  void overridesReplaceOnlyNamedFields() {
    Recipe r = Recipe.PINNED.with(Map.of("numEnvs", "64", "gamma", "0.9", "vtrace", "false", "optimizer", "muon"));
    assertThat(r.numEnvs()).isEqualTo(64);
    assertThat(r.gamma()).isEqualTo(0.9f);
    assertThat(r.vtrace()).isFalse();
    assertThat(r.optimizer()).isEqualTo("muon");
    assertThat(r.horizon()).isEqualTo(Recipe.PINNED.horizon());
    assertThat(Recipe.PINNED.with(Map.of())).isEqualTo(Recipe.PINNED);
  }

  @Test
  void badOverridesAreUserErrors() {
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("nope", "1"))).isInstanceOf(UserError.class).hasMessageContaining("nope");
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("numEnvs", "x"))).isInstanceOf(UserError.class).hasMessageContaining("numEnvs=x");
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("vtrace", "yes"))).isInstanceOf(UserError.class);
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("minibatchSegments", "7"))).isInstanceOf(UserError.class).hasMessageContaining("multiple");
  }

  @Test
  void learningRateSchedules() {
    Recipe r = Recipe.PINNED.with(Map.of("warmupIterations", "0", "learningRate", "1", "lrSchedule", "linear",
        "numEnvs", "64", "horizon", "1", "minibatchSegments", "64", "totalSteps", "640"));
    assertThat(r.iterations()).isEqualTo(10);
    assertThat(r.schedule().lr(0)).isEqualTo(1f);
    assertThat(r.schedule().lr(5)).isEqualTo(0.5f);
    Recipe c = r.with(Map.of("lrSchedule", "cosine"));
    assertThat(c.schedule().lr(5)).isCloseTo(0.5f, org.assertj.core.api.Assertions.within(1e-6f));
    Recipe w = r.with(Map.of("warmupIterations", "4", "lrSchedule", "constant"));
    assertThat(w.schedule().lr(0)).isEqualTo(0.25f);
    assertThat(w.schedule().lr(4)).isEqualTo(1f);
  }

  @Test
  void namedRecipesRoundTripThroughTheirDifferencesFromPinned() {
    assertThat(Recipe.named("pinned")).isEqualTo(Recipe.PINNED);
    assertThat(Recipe.PINNED.differencesFrom(Recipe.PINNED)).isEmpty();
    Map<String, String> d = Recipe.LLM_AGENT.differencesFrom(Recipe.PINNED);
    assertThat(d).containsEntry("trainLevels", Recipe.LLM_AGENT.trainLevels()).containsEntry("policy", "default");
    assertThat(Recipe.PINNED.with(d)).isEqualTo(Recipe.LLM_AGENT);
    assertThat(Recipe.LLM_AGENT.differencesFrom(Recipe.BASE)).doesNotContainKey("optimizer");
    assertThat(Recipe.named("llm-agent")).isEqualTo(Recipe.LLM_AGENT);
    assertThat(Recipe.named("conv")).isEqualTo(Recipe.CONV);
    assertThat(Recipe.named("base")).isEqualTo(Recipe.BASE);
    assertThat(Recipe.CONV.differencesFrom(Recipe.BASE)).containsOnlyKeys("policy", "channels", "layers", "totalSteps");
    assertThat(Recipe.PINNED.with(Recipe.CONV.differencesFrom(Recipe.PINNED))).isEqualTo(Recipe.CONV);
    // The minGRU recipe (pinned in sessions 8-19) is the conv candidate with the five changes of sessions 4-6
    // and the record attempt's pace; the pinned recipe is it with the ConvGRU policy of sessions 12-20.
    assertThat(Recipe.named("mingru")).isEqualTo(Recipe.MINGRU);
    assertThat(Recipe.MINGRU.differencesFrom(Recipe.CONV)).containsOnlyKeys("optimizer", "hidden", "layers", "convs", "crop", "shards",
        "totalSteps", "valLevels", "valInterval", "stopValSolveRate");
    assertThat(Recipe.PINNED.differencesFrom(Recipe.MINGRU)).containsExactlyInAnyOrderEntriesOf(
        Map.of("policy", "convgru", "ticks", "3", "pool", "true"));
    assertThat(Recipe.PINNED.with(Recipe.MINGRU.differencesFrom(Recipe.PINNED))).isEqualTo(Recipe.MINGRU);
    assertThat(TrainingLevels.isPath(Recipe.LLM_AGENT.trainLevels())).isTrue();
    assertThatThrownBy(() -> Recipe.named("fast")).isInstanceOf(UserError.class).hasMessageContaining("fast")
        .hasMessageContaining("llm-agent");
  }

  @Test
  void policyConvGruBuildsTheRecipesCellWithTicksAndSeparableConvolutions() {
    Recipe r = Recipe.BASE.with(Map.of("policy", "convgru", "channels", "16", "hidden", "256", "ticks", "3", "separable", "true"));
    var net = (dev.speedrun.nn.ConvGruPolicy) Engine.policy(r, 3);
    assertThat(net.config()).isEqualTo(new dev.speedrun.nn.ConvGruPolicy.Config(16, 16, 256, 5, 3, 3, true));
    assertThat(net.params().tensor("cgru.depthwise_hh").shape()).containsExactly(16, 1, 3, 3);
    assertThat(net.params().tensor("cgru.weight_hh").shape()).containsExactly(48, 16, 1, 1);
    Recipe full = r.with(Map.of("separable", "false"));
    assertThat(((dev.speedrun.nn.ConvGruPolicy) Engine.policy(full, 3)).config().separable()).isFalse();
    // the hidden convolutions: 3 ticks x 64 cells x (27 K^2 = 6,912 full, 9 K + 3 K^2 = 912 separable)
    assertThat(Engine.forwardMacs(full) - Engine.forwardMacs(r)).isEqualTo(3 * 64.0 * (6912 - 912));
    assertThatThrownBy(() -> Recipe.BASE.with(Map.of("separable", "yes"))).isInstanceOf(UserError.class).hasMessageContaining("separable");
    Recipe both = r.with(Map.of("separableInput", "true"));
    assertThat(((dev.speedrun.nn.ConvGruPolicy) Engine.policy(both, 3)).config())
        .isEqualTo(new dev.speedrun.nn.ConvGruPolicy.Config(16, 16, 256, 5, 3, 3, true, true));
    // the input convolution: 64 cells x (27 K C = 6,912 full, 9 C + 3 K C = 912 separable), once per step
    assertThat(Engine.forwardMacs(r) - Engine.forwardMacs(both)).isEqualTo(64.0 * (6912 - 912));
    // pool-and-inject: a weight_pool [3K][2K], 6 K^2 multiply-adds per tick; off by default and in runs stored before it
    assertThat(((dev.speedrun.nn.ConvGruPolicy) Engine.policy(r, 3)).config().pool()).isFalse();
    Recipe pooled = full.with(Map.of("pool", "true"));
    var pn = (dev.speedrun.nn.ConvGruPolicy) Engine.policy(pooled, 3);
    assertThat(pn.config()).isEqualTo(new dev.speedrun.nn.ConvGruPolicy.Config(16, 16, 256, 5, 3, 3, false, false, true));
    assertThat(pn.params().tensor("cgru.weight_pool").shape()).containsExactly(48, 32);
    assertThat(Engine.forwardMacs(pooled) - Engine.forwardMacs(full)).isEqualTo(3 * 6.0 * 16 * 16);
    Map<String, Object> stored = new java.util.LinkedHashMap<>(pooled.asMap());
    stored.remove("pool");
    assertThat(Recipe.fromStored(stored).pool()).isFalse();
    assertThatThrownBy(() -> Recipe.BASE.with(Map.of("pool", "maybe"))).isInstanceOf(UserError.class).hasMessageContaining("pool");
  }

  @Test
  void entropyCoefficientFollowsACosineToItsEndValueOrStaysConstant() {
    Recipe r = Recipe.BASE.with(Map.of("numEnvs", "4", "horizon", "4", "minibatchSegments", "4", "totalSteps", "1616")); // 101 iterations
    assertThat(r.iterations()).isEqualTo(101);
    assertThat(r.entropyCoefAt(0)).isEqualTo(0.01f);
    assertThat(r.entropyCoefAt(100)).isEqualTo(0.01f);
    Recipe d = r.with(Map.of("entropyCoefEnd", "0.001"));
    assertThat(d.entropyCoefAt(0)).isEqualTo(0.01f);
    assertThat(d.entropyCoefAt(50)).isCloseTo(0.0055f, org.assertj.core.data.Offset.offset(1e-7f));
    assertThat(d.entropyCoefAt(25)).isCloseTo((float) (0.001 + 0.009 * 0.5 * (1 + Math.cos(Math.PI / 4))), org.assertj.core.data.Offset.offset(1e-7f));
    assertThat(d.entropyCoefAt(100)).isCloseTo(0.001f, org.assertj.core.data.Offset.offset(1e-9f));
    assertThat(d.entropyCoefAt(500)).isCloseTo(0.001f, org.assertj.core.data.Offset.offset(1e-9f));
    assertThatThrownBy(() -> r.with(Map.of("entropyCoefEnd", "NaN"))).isInstanceOf(UserError.class).hasMessageContaining("entropyCoefEnd");
  }

  @Test
  void policyConvBuildsAConvPolicyWithTheRecipesSizes() {
    Recipe r = Recipe.BASE.with(Map.of("policy", "conv", "channels", "4", "hidden", "16", "layers", "1"));
    var net = Engine.policy(r, 3);
    assertThat(net).isInstanceOf(dev.speedrun.nn.ConvPolicy.class);
    assertThat(((dev.speedrun.nn.ConvPolicy) net).config()).isEqualTo(new dev.speedrun.nn.ConvPolicy.Config(4, 16, 1, 5, 3));
    // conv1 3,600 C + conv2 900 C^2 + proj 100 C H + minGRU 3 H^2 + heads 6 H, plus elementwise 20 H L + 2000 C.
    assertThat(Engine.forwardMacs(r)).isEqualTo(14_400 + 14_400 + 6_400 + 768 + 96 + 320 + 8_000);
    assertThat(Engine.policy(Recipe.BASE, 3)).isInstanceOf(dev.speedrun.nn.DefaultPolicy.class);
    assertThat(((dev.speedrun.nn.ConvPolicy) Engine.policy(Recipe.MINGRU, 3)).config())
        .isEqualTo(new dev.speedrun.nn.ConvPolicy.Config(16, 256, 2, 5, 3, 4, true));
    assertThat(((dev.speedrun.nn.ConvGruPolicy) Engine.policy(Recipe.PINNED, 3)).config())
        .isEqualTo(new dev.speedrun.nn.ConvGruPolicy.Config(16, 16, 256, 5, 3, 3, false, false, true));
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("policy", "mlp"))).isInstanceOf(UserError.class).hasMessageContaining("policy");
  }

  @Test
  void levelSamplingFields() {
    Recipe r = Recipe.PINNED.with(Map.of("levelSampling", "plr", "plrReplayProb", "0.3", "plrBufferSize", "100", "plrMinBuffer", "50"));
    assertThat(r.levelSampling()).isEqualTo("plr");
    assertThat(r.plrReplayProb()).isEqualTo(0.3f);
    assertThat(Recipe.PINNED.levelSampling()).isEqualTo("uniform");
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("levelSampling", "greedy"))).isInstanceOf(UserError.class)
        .hasMessageContaining("levelSampling");
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("plrReplayProb", "1.5"))).isInstanceOf(UserError.class);
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("plrTemperature", "0"))).isInstanceOf(UserError.class);
    assertThatThrownBy(() -> Recipe.PINNED.with(Map.of("plrMinBuffer", "5000"))).isInstanceOf(UserError.class)
        .hasMessageContaining("plrMinBuffer");
    assertThat(Recipe.PINNED.with(Map.of("plrBufferSize", "10")).plrMinBuffer()).as("0 = a full buffer").isZero();
  }

  /** Checkpoints written before the level-sampling fields existed match a recipe that keeps them at their defaults. */
  @Test
  void storedRecipeTextWithoutLaterFields() {
    Recipe r = Recipe.BASE.with(Map.of("numEnvs", "64"));
    String now = r.toString();
    String old = now.substring(0, now.indexOf(", levelSampling=")) + "]";
    assertThat(r.matchesStored(now)).isTrue();
    assertThat(r.matchesStored(old)).isTrue();
    assertThat(Recipe.BASE.matchesStored(old)).isFalse();
    assertThat(r.with(Map.of("levelSampling", "plr")).matchesStored(old)).isFalse();
    assertThat(r.with(Map.of("plrBufferSize", "5000")).matchesStored(old)).isFalse();
    // A later generation: the level-sampling fields present, the segment-sampling ones not yet.
    String mid = now.substring(0, now.indexOf(", segmentSampling=")) + "]";
    assertThat(r.matchesStored(mid)).isTrue();
    assertThat(r.with(Map.of("segmentSampling", "prio")).matchesStored(mid)).isFalse();
    assertThat(r.with(Map.of("numEnvs", "128")).matchesStored(mid)).isFalse();
    assertThat(r.matchesStored(mid.replace("numEnvs=64", "numEnvs=64, bogusField=1"))).isFalse();
  }

  /** A run.json's full recipe rebuilds the recipe exactly, also through JSON; missing later fields take their old values. */
  @Test
  void storedRecipeRebuildsTheRecipe() throws Exception {
    Recipe r = Recipe.CONV.with(Map.of("gamma", "0.95", "entropyCoef", "0.001", "learningRate", "7.428325E-4",
        "segmentSampling", "prio", "adamEps", "1e-12"));
    assertThat(Recipe.fromStored(r.asMap())).isEqualTo(r);
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    @SuppressWarnings("unchecked")
    Map<String, Object> back = json.readValue(json.writeValueAsString(r.asMap()), Map.class);
    assertThat(Recipe.fromStored(back)).isEqualTo(r);
    Map<String, Object> old = new java.util.LinkedHashMap<>(Recipe.PINNED.with(Map.of("segmentSampling", "prio")).asMap());
    old.remove("segmentSampling");
    assertThat(Recipe.fromStored(old).segmentSampling()).isEqualTo("shuffle");
  }
}
