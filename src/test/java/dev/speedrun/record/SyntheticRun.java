package dev.speedrun.record;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.eval.LevelSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A tiny finished run directory in the trainer's format, with a synthetic test-split evaluation. */
final class SyntheticRun {
  private SyntheticRun() {}

  static final ObjectMapper JSON = new ObjectMapper();
  private static LevelSet testSet;

  static synchronized LevelSet testSet() {
    if (testSet == null) {
      testSet = LevelSet.load(dev.speedrun.sokoban.LevelSources.sharedDir().resolve("data/boxoban"), "unfiltered/test");
    }
    return testSet;
  }

  /** A run of {@code seed} whose final checkpoint solves {@code solved} of the 1000 test levels. */
  static Path make(Path dir, long seed, int solved, double trainSeconds) throws IOException {
    Files.createDirectories(dir.resolve("checkpoints/it-000004"));
    Path ck = dir.resolve("checkpoints/it-000004/policy.safetensors");
    Files.writeString(ck, "weights of seed " + seed);
    ObjectNode recipe = JSON.createObjectNode();
    recipe.put("numEnvs", 256).put("learningRate", 0.001f).put("adamEps", 1e-8f).put("optimizer", "adamw").put("vtrace", true);
    ObjectNode run = JSON.createObjectNode();
    run.put("seed", seed).put("threads", 2).put("overridden", false);
    run.putObject("overrides");
    run.put("levels", "unfiltered/train");
    run.set("recipe", recipe);
    Files.writeString(dir.resolve("run.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(run));
    String log = """
        speedrun train
        date: 2026-12-02T10:00:00Z
        revision: unknown
        jdk: Eclipse Adoptium 25+36
        machine: Test CPU, 2 cores
        seed: %d  threads: 2
        levels: unfiltered/train  validation levels: 200
        overridden: no (pinned recipe)
        flops/step: 1.00e+06 (forward 125000 multiply-adds per env step)
        recipe:
          numEnvs = 256
          learningRate = 0.001
          adamEps = 1.0E-8
          optimizer = adamw
          vtrace = true
        step: iter 1/4 steps 100 wall 1.0s sps 100 solve 0.1000
        done: 400 steps in %.1f s of training clock
        """.formatted(seed, trainSeconds);
    Files.writeString(dir.resolve("log.txt"), log);
    StringBuilder m = new StringBuilder();
    for (int i = 1; i <= 4; i++) {
      ObjectNode row = JSON.createObjectNode();
      row.put("iteration", i).put("global_step", i * 100).put("time/wall_clock_s", trainSeconds * i / 4)
          .put("charts/solve_rate", 0.2 * i).put("losses/policy_loss", -0.01 * i).put("losses/value_loss", 1.0 / i)
          .put("losses/entropy", 1.6 - 0.1 * i).put("losses/approx_kl", 0.001 * i);
      if (i == 2) row.put("val/solve_rate", 0.3);
      m.append(JSON.writeValueAsString(row)).append('\n');
    }
    m.append("{\"global_step\":400,\"iteration\":4,\"val/solve_rate\":0.5,\"final\":true}\n");
    Files.writeString(dir.resolve("metrics.jsonl"), m.toString());
    ObjectNode sum = JSON.createObjectNode();
    sum.put("train_seconds", trainSeconds).put("steps", 400).put("iterations", 4).put("seed", seed).put("threads", 2).put("overridden", false);
    sum.putObject("overrides");
    sum.set("recipe", recipe);
    sum.put("final_checkpoint", "checkpoints/it-000004/policy.safetensors");
    sum.putObject("revision").put("commit", "unknown").putNull("dirty");
    sum.put("jdk", "Eclipse Adoptium 25+36").put("machine", "Test CPU, 2 cores");
    Files.writeString(dir.resolve("summary.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(sum));
    writeEval(dir, ck, solved);
    return dir;
  }

  /** eval.json for checkpoint {@code ck}: level i solved iff (i * 7919) mod 1000 < solved. */
  static void writeEval(Path dir, Path ck, int solved) throws IOException {
    LevelSet set = testSet();
    int[] s = new int[set.size()];
    int[][] steps = new int[set.size()][1];
    for (int i = 0; i < s.length; i++) {
      s[i] = (i * 7919) % 1000 < solved ? 1 : 0;
      steps[i][0] = s[i] == 1 ? 10 + i % 100 : 120;
    }
    Evaluator.Options o = Evaluator.Options.greedy(2);
    EvalReport.of(set, new Evaluator.Outcome(1, s, steps), o, 2.0, ck.toString(), LevelSet.sha256(ck)).write(dir.resolve("eval.json"));
  }

  /** A source tree to snapshot (revision unknown: the working tree is taken). */
  static Path sourceRoot(Path dir) throws IOException {
    Path r = dir.resolve("src/main/java/dev/speedrun/rl");
    Files.createDirectories(r);
    Files.writeString(r.resolve("Recipe.java"), "package dev.speedrun.rl;\npublic record Recipe(int numEnvs) {}\n");
    Files.writeString(dir.resolve("pom.xml"), "<project/>\n");
    return dir;
  }
}
