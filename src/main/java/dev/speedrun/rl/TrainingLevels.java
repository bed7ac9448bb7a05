package dev.speedrun.rl;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import java.util.ArrayList;
import java.util.List;

/** The Boxoban levels a run trains and validates on, found through {@link LevelSources}. */
public final class TrainingLevels {
  private TrainingLevels() {}

  /** Salt of the training level stream (per seed, env, episode). */
  private static final long LEVEL_SALT = 0x4C45564CL;

  public record Loaded(LevelSampler train, List<Level> validation, String source, int trainSize) {}

  /**
   * Training levels: uniform over the recipe's split, independently per (seed, env, episode).
   * Validation: {@code valLevels} levels of unfiltered/valid spread evenly over the split (levels
   * k * size / valLevels), the same for every run.
   */
  public static Loaded load(Recipe r, long seed, String levelsFlag) {
    LevelStore train = LevelSources.split(levelsFlag, r.trainLevels());
    List<Level> val = validation(r.valLevels(), levelsFlag);
    String src = LevelSources.root(levelsFlag) + " (" + r.trainLevels() + ": " + train.size() + " levels)";
    return new Loaded(LevelSampler.uniform(train, seed ^ LEVEL_SALT), val, src, train.size());
  }

  public static List<Level> validation(int count, String levelsFlag) {
    List<Level> out = new ArrayList<>();
    if (count == 0) return out;
    LevelStore valid = LevelSources.split(levelsFlag, "unfiltered/valid");
    for (int k = 0; k < count; k++) out.add(valid.level((int) ((long) k * valid.size() / count)));
    return out;
  }
}
