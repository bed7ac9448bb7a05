package dev.speedrun.rl;

import static dev.speedrun.rl.TrainingRunTest.setup;
import static dev.speedrun.rl.TrainingRunTest.small;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Branching a run at a checkpoint with schedule-only recipe changes ({@code train --fork}). */
class ForkTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The rows' fields that are the learning itself (not wall clock, not validation). */
  private static List<String> learning(Path run) throws Exception {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      Map<?, ?> row = JSON.readValue(line, Map.class);
      if (row.containsKey("final")) continue;
      out.add(row.get("iteration") + " " + row.get("losses/policy_loss") + " " + row.get("losses/value_loss") + " "
          + row.get("losses/entropy") + " " + row.get("losses/grad_norm") + " " + row.get("charts/episodic_return"));
    }
    return out;
  }

  /**
   * A fork that changes only bookkeeping (how often to validate) continues exactly as the parent
   * would have: the same learning row for row and the same final policy, so the fork carries the
   * whole state (parameters, Adam moments, environments, recurrent states) across.
   */
  @Test
  void bookkeepingForkContinuesBitForBit(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5); // checkpoints 2 and 4
    Recipe f = Fork.create(tmp.resolve("cut"), null, Map.of("valInterval", "5"), tmp.resolve("fork"));
    assertThat(f).isEqualTo(r.with(Map.of("valInterval", "5")));
    assertThat(learning(tmp.resolve("fork"))).isEqualTo(learning(tmp.resolve("whole")).subList(0, 4));

    TrainingRun.Result forked = TrainingRun.resume(setup(f, 9), tmp.resolve("fork"), Dashboard.silent());
    assertThat(forked.finished()).isTrue();
    assertThat(learning(tmp.resolve("fork"))).isEqualTo(learning(tmp.resolve("whole")));
    assertThat(Files.readAllBytes(forked.checkpoint().resolve("policy.safetensors")))
        .isEqualTo(Files.readAllBytes(whole.checkpoint().resolve("policy.safetensors")));
    assertThat(Files.readString(tmp.resolve("fork/metrics.jsonl"))).contains("\"val/solve_rate\"");
    assertThat(Files.readString(tmp.resolve("cut/run.json"))).doesNotContain("forked_from"); // the parent is only read
  }

  /**
   * A fork that changes the entropy bonus shares the parent's history up to the checkpoint and
   * learns differently after it; its run.json says where it came from and marks it overridden.
   */
  @Test
  void entropyForkDiffersAfterTheBranchAndRecordsItsOrigin(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5);
    Recipe f = Fork.create(tmp.resolve("cut"), "it-000004", Map.of("entropyCoef", "0.2"), tmp.resolve("fork"));
    TrainingRun.Result forked = TrainingRun.resume(setup(f, 9), tmp.resolve("fork"), Dashboard.silent());
    List<String> a = learning(tmp.resolve("whole")), b = learning(tmp.resolve("fork"));
    assertThat(b.subList(0, 4)).isEqualTo(a.subList(0, 4));
    assertThat(b).hasSize(8);
    for (int i = 4; i < 8; i++) assertThat(b.get(i)).isNotEqualTo(a.get(i));
    assertThat(Files.readAllBytes(forked.checkpoint().resolve("policy.safetensors")))
        .isNotEqualTo(Files.readAllBytes(whole.checkpoint().resolve("policy.safetensors")));

    Map<?, ?> rj = JSON.readValue(tmp.resolve("fork/run.json").toFile(), Map.class);
    assertThat(rj.get("overridden")).isEqualTo(true);
    assertThat(((Map<?, ?>) rj.get("recipe")).get("entropyCoef")).isEqualTo(0.2);
    Map<?, ?> from = (Map<?, ?>) rj.get("forked_from");
    assertThat(from.get("checkpoint")).isEqualTo("it-000004");
    assertThat(from.get("iteration")).isEqualTo(4);
    assertThat(from.get("global_step")).isEqualTo(4 * 512);
    assertThat(Files.readString(tmp.resolve("fork/log.txt"))).contains("fork: from", "{entropyCoef=0.2}", "resume: from");
    assertThat(TrainingRun.stored(tmp.resolve("fork")).overrides()).containsEntry("entropyCoef", "0.2");
    assertThat(dev.speedrun.record.RunStatus.read(tmp.resolve("fork")).describe())
        .contains("a fork of " + tmp.resolve("cut").toAbsolutePath() + " at it-000004 (0.0M steps) with {\"entropyCoef\":\"0.2\"}");
    assertThat(dev.speedrun.record.RunStatus.read(tmp.resolve("cut")).describe()).doesNotContain("a fork of");
  }

  /** A finished run extends by a fork with a larger totalSteps; a kept portable run forks as its run directory does. */
  @Test
  void finishedAndKeptRunsFork(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    Recipe longer = Fork.create(tmp.resolve("whole"), null, Map.of("totalSteps", "6144"), tmp.resolve("longer"));
    TrainingRun.Result more = TrainingRun.resume(setup(longer, 9), tmp.resolve("longer"), Dashboard.silent());
    assertThat(more.finished()).isTrue();
    assertThat(more.iterations()).isEqualTo(12);
    assertThat(learning(tmp.resolve("longer"))).hasSize(12);

    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5);
    KeptRun.keep(tmp.resolve("cut"), tmp.resolve("kept"), true);
    Fork.create(tmp.resolve("cut"), null, Map.of("learningRate", "0.0005"), tmp.resolve("f1"));
    Fork.create(tmp.resolve("kept"), null, Map.of("learningRate", "0.0005"), tmp.resolve("f2"));
    for (String f : List.of("trainer.bin", "policy.safetensors")) {
      assertThat(Files.readAllBytes(tmp.resolve("f2/checkpoints/it-000004").resolve(f)))
          .isEqualTo(Files.readAllBytes(tmp.resolve("f1/checkpoints/it-000004").resolve(f)));
    }
    assertThat(Files.readAllLines(tmp.resolve("f2/metrics.jsonl"))).isEqualTo(Files.readAllLines(tmp.resolve("f1/metrics.jsonl")));
  }

  /** Each mistake is one sentence and writes nothing. */
  @Test
  void refusesWhatItCannotFork(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent()); // checkpoints 2, 4, 6, 8; 2 and 4 pruned
    Path src = tmp.resolve("whole"), out = tmp.resolve("f");
    assertThatThrownBy(() -> Fork.create(src, null, Map.of("hidden", "64"), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("cannot change hidden").hasMessageContaining("entropyCoefEnd");
    assertThatThrownBy(() -> Fork.create(src, null, Map.of("hiden", "64"), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("hiden: no such recipe field");
    assertThatThrownBy(() -> Fork.create(src, null, Map.of(), out)).isInstanceOf(UserError.class).hasMessageContaining("at least one --set");
    assertThatThrownBy(() -> Fork.create(src, null, Map.of("gamma", String.valueOf(r.gamma())), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("leaves");
    assertThatThrownBy(() -> Fork.create(src, "2", Map.of("gamma", "0.9"), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("no trainer state");
    assertThatThrownBy(() -> Fork.create(src, "it-000003", Map.of("gamma", "0.9"), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("has no checkpoint it-000003");
    assertThat(out).doesNotExist();
    Files.createDirectories(out);
    assertThatThrownBy(() -> Fork.create(src, null, Map.of("gamma", "0.9"), out)).isInstanceOf(UserError.class)
        .hasMessageContaining("exists already");
    assertThat(out.toFile().list()).isEmpty();
    assertThat(tmp.toFile().list()).containsExactlyInAnyOrder("whole", "f");
  }
}
