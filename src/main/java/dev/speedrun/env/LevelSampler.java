package dev.speedrun.env;

import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelStore;

/**
 * Chooses the level an environment plays next. Deterministic: the choice depends only on the
 * sampler's own seed, the environment's index and that environment's episode number, never on a
 * shared generator, so a run's level stream does not depend on thread timing. The exception is
 * {@link PrioritizedLevelReplay}, whose choice also depends on the scores it was given and on its
 * own stream, consumed in reset order (which {@link BoxobanEnv#step} keeps in environment order).
 */
public interface LevelSampler {
  /** The level for episode {@code episode} (0, 1, ...) of environment {@code env}. */
  Level level(int env, long episode);

  /**
   * Writes the cell flags ({@link Level#WALL} etc.) of the level for (env, episode) into
   * {@code dst[off .. off+100)} as a 10x10 board, the level at the top-left, padded with walls.
   * The environment resets through this method; samplers over a {@link LevelStore} implement it
   * without allocating.
   */
  default void board10(int env, long episode, byte[] dst, int off) {
    pad10(level(env, episode), dst, off);
  }

  /** The {@link LevelStore} index for (env, episode), or -1 when the sampler is not over a store. */
  default int storeIndex(int env, long episode) {
    return -1;
  }

  /** Writes {@code level} as a 10x10 board of cell flags padded with walls. */
  static void pad10(Level level, byte[] dst, int off) {
    int w = level.width(), h = level.height();
    if (w > 10 || h > 10) throw new IllegalArgumentException("level is " + w + "x" + h + ", larger than 10x10");
    java.util.Arrays.fill(dst, off, off + 100, Level.WALL);
    for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) dst[off + r * 10 + c] = level.cell(r * w + c);
  }

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

  /**
   * Uniform over a store, independently per (seed, env, episode): the same choice as
   * {@link #uniform(java.util.List, long)} over {@code store.levels()}.
   */
  static LevelSampler uniform(LevelStore store, long seed) {
    int size = store.size();
    return new StoreSampler(store) {
      @Override
      public int storeIndex(int env, long episode) {
        return (int) Long.remainderUnsigned(Rng.mix(seed, env, episode), size);
      }
    };
  }

  /** Environment {@code env} plays store level {@code env + episode * numEnvs}, wrapping around. */
  static LevelSampler inOrder(LevelStore store, int numEnvs) {
    int size = store.size();
    return new StoreSampler(store) {
      @Override
      public int storeIndex(int env, long episode) {
        return (int) ((env + episode * numEnvs) % size);
      }
    };
  }

  /** A sampler over a store; subclasses choose the index. */
  abstract class StoreSampler implements LevelSampler {
    private final LevelStore store;
    private final boolean tenByTen;

    StoreSampler(LevelStore store) {
      if (store.size() == 0) throw new IllegalArgumentException("no levels to sample from");
      if (store.width() > 10 || store.height() > 10) {
        throw new IllegalArgumentException("levels are " + store.width() + "x" + store.height() + ", larger than 10x10");
      }
      this.store = store;
      this.tenByTen = store.width() == 10 && store.height() == 10;
    }

    public LevelStore store() { return store; }

    @Override
    public abstract int storeIndex(int env, long episode);

    @Override
    public Level level(int env, long episode) {
      return store.level(storeIndex(env, episode));
    }

    @Override
    public void board10(int env, long episode, byte[] dst, int off) {
      int k = storeIndex(env, episode);
      if (tenByTen) {
        store.copyCells(k, dst, off);
        return;
      }
      int w = store.width(), h = store.height();
      java.util.Arrays.fill(dst, off, off + 100, Level.WALL);
      for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) dst[off + r * 10 + c] = store.cell(k, r * w + c);
    }
  }
}
