package dev.speedrun.rl;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * An experiment, not a test (it asserts nothing and is skipped unless {@code -Dspeedrun.experiment=true}):
 * LearningTest's algorithm settings on 200 generated one-box levels with the player placed anywhere
 * (not behind the box), greedy solve rate on 200 held-out levels before and after, for the policy
 * given by {@code -Dexp.set=policy=conv,hidden=64,...} (recipe overrides), {@code -Dexp.steps},
 * {@code -Dexp.out} (run directory; metrics.jsonl there has the validation curve). See
 * docs/experiments.md, "conv vs default on easy levels".
 *
 * <pre>
 *   ./mvnw -o -q test -Dtest=PolicyComparisonExperiment -Dspeedrun.experiment=true \
 *     -Dexp.set=policy=conv -Dexp.steps=300000 -Dexp.out=/tmp/exp-conv
 * </pre>
 */
class PolicyComparisonExperiment {
  @Test
  @EnabledIfSystemProperty(named = "speedrun.experiment", matches = "true")
  void run() throws Exception {
    List<Level> train = Fixtures.easyLevels(200, 1, 5, false), heldOut = Fixtures.easyLevels(200, 2, 5, false);
    Map<String, String> m = new HashMap<>(Map.of("numEnvs", "64", "horizon", "32", "minibatchSegments", "16", "epochs", "4",
        "hidden", "128", "learningRate", "0.003", "lrSchedule", "constant", "checkpointInterval", "0", "valInterval", "25"));
    m.put("totalSteps", System.getProperty("exp.steps", "300000"));
    for (String kv : System.getProperty("exp.set", "").split(",")) {
      if (!kv.isBlank()) m.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
    Recipe r = TrainingRunTest.small(m);
    double before = Trainer.validate(Engine.policy(r, 1), heldOut);
    TrainingRun.Setup s = new TrainingRun.Setup(r, Map.of("experiment", String.valueOf(m)), 1, 1, LevelSampler.uniform(train, 1),
        heldOut, "generated easy levels, player anywhere", Fixtures.small());
    Path out = Path.of(System.getProperty("exp.out", "/tmp/exp-" + r.policy()));
    if (Files.exists(out)) throw new IllegalStateException(out + " exists");
    TrainingRun.Result res = TrainingRun.start(s, out, Dashboard.silent());
    System.out.printf("experiment %s: flops/step %.3g, greedy held-out solve %.3f before, %.3f after %d steps (train rolling %.3f), %.1f s%n",
        m, Engine.flopsPerStep(r), before, res.valSolveRate(), res.steps(), res.trainSolveRate(), res.trainSeconds());
  }
}
