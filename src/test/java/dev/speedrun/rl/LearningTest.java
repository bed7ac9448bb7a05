package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Learning: generated one-box levels in open rooms of 3x3 to 5x5 floor, the player behind the box,
 * the goal 1-3 cells further on the same line (see {@link Fixtures#easyLevels}). The untrained
 * policy's greedy play mostly repeats one direction and solves about a quarter of them; after a
 * short run (120k steps, about 30 s here) of the pinned algorithm with a small policy, greedy play
 * solves at least 60% of 200 held-out levels (measured: 0.72).
 */
class LearningTest {
  @Test
  void learnsToPushTheBoxOntoTheGoal(@TempDir Path tmp) throws Exception {
    List<Level> train = Fixtures.easyLevels(200, 1, 5, true), heldOut = Fixtures.easyLevels(200, 2, 5, true);
    Recipe r = TrainingRunTest.small(Map.of("numEnvs", "64", "horizon", "32", "minibatchSegments", "16", "epochs", "4",
        "hidden", "128", "totalSteps", "120000", "learningRate", "0.003", "lrSchedule", "constant",
        "checkpointInterval", "0", "valInterval", "0"));
    double before = Trainer.validate(Engine.policy(r, 1), heldOut);
    TrainingRun.Setup s = new TrainingRun.Setup(r, Map.of("test", "learning"), 1, 2, LevelSampler.uniform(train, 1),
        heldOut, "generated easy levels", Fixtures.small());
    Dashboard d = Boolean.getBoolean("speedrun.verbose") ? new Dashboard(System.out, false) : Dashboard.silent();
    TrainingRun.Result res = TrainingRun.start(s, tmp.resolve("run"), d);
    System.out.printf("learning test: greedy held-out solve rate %.3f before, %.3f after %d steps (train rolling %.3f), %.1fs%n",
        before, res.valSolveRate(), res.steps(), res.trainSolveRate(), res.trainSeconds());
    assertThat(before).isLessThan(0.4);
    assertThat(res.valSolveRate()).isGreaterThanOrEqualTo(0.6);
  }
}
