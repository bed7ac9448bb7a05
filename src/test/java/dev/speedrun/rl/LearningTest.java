package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Learning: on generated one-box levels in small open rooms (see {@link Fixtures#easyLevels}), a
 * short run of the pinned algorithm with a small policy goes from a near-zero solve rate (random
 * play solves few of these in 120 steps) to a greedy validation solve rate of at least 0.8 on 100
 * held-out levels.
 */
class LearningTest {
  @Test
  void solvesEasyLevels(@TempDir Path tmp) throws Exception {
    Recipe r = Recipe.PINNED.with(Map.of("numEnvs", "64", "horizon", "32", "minibatchSegments", "32",
        "hidden", "64", "layers", "1", "totalSteps", "200000", "checkpointInterval", "0", "valInterval", "0",
        "learningRate", "0.003", "warmupIterations", "2"));
    TrainingRun.Setup s = new TrainingRun.Setup(r, Map.of("test", "learning"), 3, 1,
        LevelSampler.uniform(TrainingRunTest.EASY, 3), TrainingRunTest.EASY_VAL, "generated easy levels", Fixtures.small());
    Dashboard d = Boolean.getBoolean("speedrun.verbose") ? new Dashboard(System.out, false) : Dashboard.silent();
    TrainingRun.Result res = TrainingRun.start(s, tmp.resolve("run"), d);
    System.out.printf("learning test: %d steps, train solve %.3f, val solve %.3f, %.1fs%n", res.steps(),
        res.trainSolveRate(), res.valSolveRate(), res.trainSeconds());
    assertThat(res.valSolveRate()).isGreaterThanOrEqualTo(0.8);
  }
}
