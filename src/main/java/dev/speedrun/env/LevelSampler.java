package dev.speedrun.env;

import dev.speedrun.sokoban.Level;

/**
 * Chooses the level an environment plays next. Deterministic: the choice depends only on the
 * sampler's own seed, the environment's index and that environment's episode number, never on a
 * shared generator, so a run's level stream does not depend on thread timing.
 */
public interface LevelSampler {
  /** The level for episode {@code episode} (0, 1, ...) of environment {@code env}. */
  Level level(int env, long episode);

  /** Uniform over {@code levels}, independently per (seed, env, episode). */
  static LevelSampler uniform(java.util.List<Level> levels, long seed) {
    Level[] a = levels.toArray(new Level[0]);
    if (a.length == 0) throw new IllegalArgumentException("no levels to sample from");
    return (env, episode) -> a[(int) Long.remainderUnsigned(Rng.mix(seed, env, episode), a.length)];
  }

  /** Environment {@code env} plays {@code levels[env + episode * numEnvs]}, wrapping around. */
  static LevelSampler inOrder(java.util.List<Level> levels, int numEnvs) {
    Level[] a = levels.toArray(new Level[0]);
    if (a.length == 0) throw new IllegalArgumentException("no levels to sample from");
    return (env, episode) -> a[(int) ((env + episode * numEnvs) % a.length)];
  }
}
