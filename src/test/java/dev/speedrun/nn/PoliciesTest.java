package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PoliciesTest {
  @TempDir Path dir;

  @Test
  void saveLoadIsBitExactAndKeepsMetadataAndExtras() throws Exception {
    var net = new DefaultPolicy(new DefaultPolicy.Config(16, 2, 5, 3));
    Rng rng = new Rng(2);
    for (int i = 0; i < net.params().size(); i++) net.params().data[i] = (float) rng.nextDouble() - 0.5f;
    Path f = dir.resolve("p.safetensors");
    Policies.save(f, net, Map.of("step", "1234"), List.of(Safetensors.Tensor.i64("trainer.step", new long[] {1234}, 1)));
    Policies.Loaded l = Policies.open(f);
    assertThat(l.metadata()).containsEntry("step", "1234").containsKey("policy");
    assertThat(((DefaultPolicy) l.policy()).config()).isEqualTo(net.config());
    assertThat(l.policy().params().data).containsExactly(net.params().data);
    assertThat(l.contents().tensors().get("trainer.step").longs()).containsExactly(1234L);
    assertThat(l.contents().tensors().get("rnn.1.weight").shape()).containsExactly(48, 16);

    // Same outputs on the same input.
    byte[] obs = DefaultPolicyTest.randomObs(rng, 3);
    float[] s1 = new float[3 * 32], s2 = new float[3 * 32], l1 = new float[15], l2 = new float[15], v1 = new float[3], v2 = new float[3];
    net.step(obs, 3, s1, l1, v1);
    l.policy().step(obs, 3, s2, l2, v2);
    assertThat(l2).containsExactly(l1);
  }

  @Test
  void mismatchedOrForeignFilesAreRefused() throws Exception {
    Path f = dir.resolve("x.safetensors");
    Safetensors.write(f, Map.of(), List.of(Safetensors.Tensor.f32("w", new float[1], 1)));
    assertThatThrownBy(() -> Policies.load(f)).isInstanceOf(UserError.class).hasMessageContaining("not a policy checkpoint");

    var net = new DefaultPolicy(new DefaultPolicy.Config(8, 1, 5, 3));
    var tensors = Policies.tensorsOf(net.params());
    tensors.set(2, Safetensors.Tensor.f32("rnn.0.weight", new float[24 * 9], 24, 9));
    Safetensors.write(f, Map.of(Policies.POLICY_KEY, net.config().toJson()), tensors);
    assertThatThrownBy(() -> Policies.load(f)).isInstanceOf(UserError.class)
        .hasMessageContaining("rnn.0.weight").hasMessageContaining("F32[24, 8]");

    Safetensors.write(f, Map.of(Policies.POLICY_KEY, net.config().toJson()), tensors.subList(0, 2));
    assertThatThrownBy(() -> Policies.load(f)).isInstanceOf(UserError.class).hasMessageContaining("no tensor named rnn.0.weight");
  }
}
