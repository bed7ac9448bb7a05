package dev.speedrun.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.eval.Scoring;
import dev.speedrun.rl.Dashboard;
import dev.speedrun.rl.Recipe;
import dev.speedrun.rl.TrainingRun;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The record reader against the trainer's real run directory (a tiny run), end to end. */
class TrainerFormatTest {
  @Test
  void aRealTinyRunAssemblesAndVerifies(@TempDir Path tmp) throws Exception {
    var testSet = SyntheticRun.testSet(); // found from the real root, before it is moved below
    String before = System.getProperty("speedrun.root");
    System.setProperty("speedrun.root", tmp.toString()); // not a git checkout: revision "unknown", never dirty
    try {
      Recipe r = Recipe.BASE.with(Map.of("numEnvs", "16", "horizon", "8", "minibatchSegments", "8", "hidden", "16",
          "layers", "1", "totalSteps", "256", "checkpointInterval", "1", "valInterval", "1", "valLevels", "2", "warmupIterations", "0"));
      List<Level> levels = List.of(Formats.parseXsb("#####\n#@$.#\n#####", "t"), Formats.parseXsb("######\n#@ $.#\n######", "t"));
      Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
      Path rec = null;
      for (long seed : new long[] {42, 43}) {
        TrainingRun.Setup s = new TrainingRun.Setup(r, Map.of(), seed, 1, LevelSampler.uniform(levels, seed), levels,
            "two test levels", TrainingRun.ENGINE);
        TrainingRun.Result res = TrainingRun.start(s, tmp.resolve("run" + seed), Dashboard.silent());
        assertThat(res.finished()).isTrue();
        RunDir run = RunDir.read(res.runDir());
        assertThat(run.seed()).isEqualTo(seed);
        assertThat(run.overridden()).isFalse();
        assertThat(run.logRecipe).containsEntry("numEnvs", "16").containsEntry("hidden", "16");
        assertThat(RunDir.recipeDifference(run.logRecipe, run.summaryRecipe())).isNull();
        assertThat(RunDir.series(run.metrics(), "charts/solve_rate")[0]).isNotEmpty();
        Scoring.score(run.finalCheckpoint(), "policy.safetensors", testSet, Evaluator.Options.greedy(2))
            .write(res.runDir().resolve("eval.json"));
        rec = seed == 42 ? Records.assemble(res.runDir(), tmp.resolve("records"), src, "tiny", null, null)
            : Records.assemble(res.runDir(), tmp.resolve("records"), src, null, null, rec);
      }
      RecordVerifier.Report rep = RecordVerifier.verify(rec);
      // Everything holds but the bar: a 256-step policy solves nothing of unfiltered/test.
      assertThat(rep.checks().stream().filter(c -> !c.ok()).map(RecordVerifier.Check::what))
          .as(rep.text()).containsExactlyInAnyOrder("main: lower CI > 0.70", "verification: lower CI > 0.70", "bar: worse lower CI > 0.70");
      assertThat(rec.resolve("figures/training.png")).isRegularFile();
      assertThat(Files.readString(rec.resolve("README.md"))).contains("| hidden | 16 |");
    } finally {
      if (before == null) System.clearProperty("speedrun.root");
      else System.setProperty("speedrun.root", before);
    }
  }
}
