package dev.speedrun.rl;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScratchTest {
  @Test
  void corridor() {
    List<Level> lv = Fixtures.easyLevels(Integer.getInteger("cnt", 100), 1, Integer.getInteger("side", 4));
    Map<String, String> extra = new java.util.HashMap<>();
    for (String kv : System.getProperty("set", "").split(",")) if (!kv.isBlank()) extra.put(kv.split("=")[0], kv.split("=")[1]);
    Recipe r = TrainingRunTest.small(Map.of("totalSteps", System.getProperty("steps", "200000"), "learningRate", "0.003", "numEnvs", "64", "minibatchSegments", "32", "horizon", "32", "hidden", "64")).with(extra);
    PolicyNet net = Engine.policy(r, 1);
    Trainer tr = new Trainer(r, 1, net, Engine.optimizer(r, net), LevelSampler.uniform(lv, 1));
    while (!tr.finished()) {
      Trainer.Metrics m = tr.iterate();
      if (m.iteration() % 10 == 0) System.out.println(TrainingRun.stepLine(m, r.iterations(), 0, 0));
    }
    System.out.println("greedy on train levels " + Trainer.validate(net, lv) + " held-out " + Trainer.validate(net, Fixtures.easyLevels(200, 2, Integer.getInteger("side", 4))));
  }
}
