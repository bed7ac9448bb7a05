package dev.speedrun.rl;

import dev.speedrun.UserError;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.env.PrioritizedLevelReplay;
import dev.speedrun.env.Rng;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The levels a run trains and validates on: a Boxoban split found through {@link LevelSources}, or
 * a level file or directory of our own (e.g. the LLM track's generated train puzzles, written by
 * {@code ./speedrun llm dataset --boxoban-out F}).
 *
 * <p>The recipe's {@code trainLevels} is a <em>path</em> when it is absolute, starts with
 * {@code ./} or {@code ../}, or ends with {@code .txt}; otherwise it names a split under the
 * Boxoban root (e.g. {@code unfiltered/train}). A path holds Boxoban-format levels of at most
 * 10x10 (a file, or a directory of {@code *.txt} files read in name order). With a path, the last
 * {@code valLevels} levels are held out for validation and never trained on; with a split,
 * validation is on unfiltered/valid as in scoring.
 */
public final class TrainingLevels {
  private TrainingLevels() {}

  /** Salt of the training level stream (per seed, env, episode). */
  private static final long LEVEL_SALT = 0x4C45564CL;
  /** Salt of the level-replay sampler's own stream (replay decisions and draws). */
  private static final long PLR_SALT = 0x504C5253L;

  /**
   * The recipe's level sampler over {@code store}: uniform per (seed, env, episode), or Prioritized
   * Level Replay whose new levels are that same uniform stream.
   */
  public static LevelSampler sampler(Recipe r, LevelStore store, long seed) {
    if (r.levelSampling().equals("uniform")) return LevelSampler.uniform(store, seed ^ LEVEL_SALT);
    var cfg = new PrioritizedLevelReplay.Settings(r.plrReplayProb(), r.plrTemperature(), r.plrStaleness(), r.plrBufferSize(),
        r.plrMinBuffer() == 0 ? r.plrBufferSize() : r.plrMinBuffer());
    return new PrioritizedLevelReplay(store, r.numEnvs(), cfg, seed ^ LEVEL_SALT, Rng.mix(seed ^ PLR_SALT, 0, 0));
  }

  public record Loaded(LevelSampler train, List<Level> validation, String source, int trainSize) {}

  /**
   * Training levels: uniform over the recipe's split (or path), independently per (seed, env,
   * episode). Validation on a split: {@code valLevels} levels of unfiltered/valid spread evenly
   * over the split (levels k * size / valLevels), the same for every run; on a path: its last
   * {@code valLevels} levels.
   */
  public static Loaded load(Recipe r, long seed, String levelsFlag) {
    if (isPath(r.trainLevels())) return loadPath(r, Path.of(r.trainLevels()), r.valLevels(), seed);
    LevelStore train = LevelSources.split(levelsFlag, r.trainLevels());
    List<Level> val = validation(r.valLevels(), levelsFlag);
    String src = LevelSources.root(levelsFlag) + " (" + r.trainLevels() + ": " + train.size() + " levels)";
    return new Loaded(sampler(r, train, seed), val, src, train.size());
  }

  /** Whether a {@code trainLevels} value is a path to levels rather than a Boxoban split name. */
  public static boolean isPath(String trainLevels) {
    return Path.of(trainLevels).isAbsolute() || trainLevels.startsWith("./") || trainLevels.startsWith("../")
        || trainLevels.endsWith(".txt");
  }

  /** Levels of a file or directory: the last {@code valLevels} for validation, the rest for training. */
  static Loaded loadPath(Recipe r, Path p, int valLevels, long seed) {
    List<Level> all = readPath(p);
    if (valLevels >= all.size()) {
      throw new UserError(p + ": " + all.size() + " levels, not enough to hold out valLevels = " + valLevels
          + " for validation and train on the rest");
    }
    int n = all.size() - valLevels;
    List<Level> train = all.subList(0, n), val = List.copyOf(all.subList(n, all.size()));
    LevelStore store = LevelStore.of(p.getFileName().toString(), p.getFileName().toString(), train);
    String src = p.toAbsolutePath().normalize() + " (" + n + " training levels, last " + valLevels
        + " held out for validation)";
    return new Loaded(sampler(r, store, seed), val, src, n);
  }

  /** Every level of a Boxoban-format file, or of the {@code *.txt} files of a directory in name order. */
  public static List<Level> readPath(Path p) {
    List<Path> files;
    if (Files.isDirectory(p)) {
      try (var s = Files.list(p)) {
        files = s.filter(f -> f.getFileName().toString().endsWith(".txt") && Files.isRegularFile(f)).sorted().toList();
      } catch (IOException e) {
        throw new UserError(p + ": cannot list the directory (" + e.getMessage() + ")");
      }
      if (files.isEmpty()) throw new UserError(p + ": no .txt level files in the directory");
    } else if (Files.isRegularFile(p)) {
      files = List.of(p);
    } else {
      throw new UserError("trainLevels " + p + ": no such file or directory");
    }
    List<Level> out = new ArrayList<>();
    for (Path f : files) {
      String text;
      try {
        text = Files.readString(f, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UserError(f + ": cannot read the file (" + e.getMessage() + ")");
      }
      for (Formats.Entry e : Formats.parseBoxoban(text, f.toString())) {
        Level l = e.level();
        if (l.width() != 10 || l.height() != 10) {
          throw new UserError(f + " line " + e.line() + ": level " + e.index() + " is " + l.width() + "x" + l.height()
              + "; training levels must be 10x10 (write them with llm dataset --boxoban-out, which pads with walls)");
        }
        out.add(l);
      }
    }
    return out;
  }

  public static List<Level> validation(int count, String levelsFlag) {
    List<Level> out = new ArrayList<>();
    if (count == 0) return out;
    LevelStore valid = LevelSources.split(levelsFlag, "unfiltered/valid");
    for (int k = 0; k < count; k++) out.add(valid.level((int) ((long) k * valid.size() / count)));
    return out;
  }
}
