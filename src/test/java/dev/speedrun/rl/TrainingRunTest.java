package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Determinism, kill/resume equivalence and learning on easy levels, on short runs. */
class TrainingRunTest {
  static final List<Level> EASY = Fixtures.easyLevels(500, 1);
  static final List<Level> EASY_VAL = Fixtures.easyLevels(100, 2);

  /** A tiny variant of the pinned recipe. */
  static Recipe small(Map<String, String> more) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("numEnvs", "32", "horizon", "16", "minibatchSegments", "16",
        "hidden", "32", "layers", "1", "totalSteps", "4096", "checkpointInterval", "2", "valInterval", "3",
        "valLevels", "20", "warmupIterations", "1"));
    m.putAll(more);
    return Recipe.PINNED.with(m);
  }

  static TrainingRun.Setup setup(Recipe r, long seed) {
    return new TrainingRun.Setup(r, Map.of("test", "1"), seed, 1, LevelSampler.uniform(EASY, seed), EASY_VAL.subList(0, 20),
        "generated easy levels", Fixtures.small());
  }

  @Test
  void sameSeedGivesBitIdenticalCheckpoints(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    TrainingRun.Result c = TrainingRun.start(setup(r, 6), tmp.resolve("c"), Dashboard.silent());
    assertThat(a.finished()).isTrue();
    assertThat(a.iterations()).isEqualTo(8);
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("trainer.bin")))
        .isNotEqualTo(Files.readAllBytes(c.checkpoint().resolve("trainer.bin")));
    assertThat(Files.readString(tmp.resolve("a/summary.json"))).contains("\"train_seconds\"", "\"final_checkpoint\"");
    assertThat(Files.readAllLines(tmp.resolve("a/metrics.jsonl"))).hasSize(9); // 8 iterations + final validation
    assertThat(Files.readString(tmp.resolve("a/log.txt"))).contains("recipe:", "revision:", "machine:", "step: iter 8/8");
  }

  @Test
  void killedAndResumedRunEndsBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, small(Map.of()));
  }

  /** Muon's momentum and Adam moments for the vectors travel through the checkpoint too. */
  @Test
  void muonRunResumesBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, small(Map.of("optimizer", "muon")));
  }

  /** Overlap mode: the checkpoint also carries the collected batch that has not been trained on. */
  @Test
  void overlappedRunIsDeterministicAndResumable(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of("overlap", "true"));
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    TrainingRun.Result plain = TrainingRun.start(setup(small(Map.of()), 5), tmp.resolve("c"), Dashboard.silent());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("policy.safetensors")))
        .as("one update of lag changes the result").isNotEqualTo(Files.readAllBytes(plain.checkpoint().resolve("policy.safetensors")));
    killAndResume(tmp.resolve("k"), r);
  }

  private static void killAndResume(Path tmp, Recipe r) throws Exception {
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    // Dies after 5 iterations (last checkpoint at 4), leaving a half-written checkpoint behind.
    TrainingRun.Result killed = TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5);
    assertThat(killed.finished()).isFalse();
    Files.createDirectories(tmp.resolve("cut/checkpoints/.tmp-it-000006"));
    Files.writeString(tmp.resolve("cut/metrics.jsonl"), "{\"iteration\": 6, \"glob", java.nio.file.StandardOpenOption.APPEND);
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), tmp.resolve("cut"), Dashboard.silent());
    assertThat(resumed.finished()).isTrue();
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());
    assertThat(Files.exists(tmp.resolve("cut/checkpoints/.tmp-it-000006"))).isFalse();
    List<String> metrics = Files.readAllLines(tmp.resolve("cut/metrics.jsonl"));
    assertThat(metrics).hasSize(9);
    assertThat(Files.readString(tmp.resolve("cut/log.txt"))).contains("resume: from checkpoints/it-000004");
  }

  private static void assertSameCheckpoint(Path x, Path y) throws Exception {
    assertThat(Files.readAllBytes(x.resolve("trainer.bin"))).isEqualTo(Files.readAllBytes(y.resolve("trainer.bin")));
    assertThat(Files.readAllBytes(x.resolve("policy.safetensors"))).isEqualTo(Files.readAllBytes(y.resolve("policy.safetensors")));
  }
}
