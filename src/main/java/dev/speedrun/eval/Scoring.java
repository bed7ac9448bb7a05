package dev.speedrun.eval;

import dev.speedrun.UserError;
import dev.speedrun.nn.Policies;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Scores a checkpoint file on a level set: the one entry point for the eval command, records and the main job. */
public final class Scoring {
  private Scoring() {}

  /**
   * Plays the checkpoint's policy on every level of {@code set} (one network per thread, each loaded
   * from the file) and returns the report; {@code shownPath} is how the report names the checkpoint.
   * Fails if the file changes while it is being scored.
   */
  public static EvalReport score(Path checkpoint, String shownPath, LevelSet set, Evaluator.Options o) {
    if (!Files.isRegularFile(checkpoint)) throw new UserError("checkpoint " + checkpoint + ": no such file");
    String sha = LevelSet.sha256(checkpoint);
    Policies.load(checkpoint); // a bad checkpoint fails here, once, with one sentence
    List<Level> lv = set.entries.stream().map(LevelSet.Entry::level).toList();
    long t0 = System.nanoTime();
    Evaluator.Outcome res = Evaluator.play(lv, () -> Policies.load(checkpoint), o);
    double secs = (System.nanoTime() - t0) / 1e9;
    if (!LevelSet.sha256(checkpoint).equals(sha)) throw new UserError("checkpoint " + checkpoint + " changed while it was being scored");
    return EvalReport.of(set, res, o, secs, shownPath, sha);
  }

  /** The benchmark's scoring: greedy on the official unfiltered/test found under {@code levelsFlag} (or the lookup order). */
  public static EvalReport scoreOnTest(Path checkpoint, String levelsFlag, int threads) {
    return score(checkpoint, checkpoint.toString(), LevelSet.load(LevelSources.root(levelsFlag), LevelSet.TEST_SPLIT),
        Evaluator.Options.greedy(threads));
  }
}
