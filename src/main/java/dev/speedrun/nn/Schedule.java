package dev.speedrun.nn;

/**
 * Learning-rate schedules: the rate for update number {@code step} (0-based) of {@code total}.
 * Compose with {@link #warmup}: linear from 0 over the first {@code steps} updates, then the inner
 * schedule (which sees steps counted from 0 at the end of the warm-up).
 */
public interface Schedule {
  float lr(long step);

  static Schedule constant(float lr) {
    return s -> lr;
  }

  /** Linear from {@code from} to {@code to} over {@code total} steps, then {@code to}. */
  static Schedule linear(float from, float to, long total) {
    return s -> s >= total ? to : from + (to - from) * (float) ((double) s / total);
  }

  /** Cosine from {@code max} down to {@code min} over {@code total} steps, then {@code min}. */
  static Schedule cosine(float max, float min, long total) {
    return s -> s >= total ? min : (float) (min + 0.5 * (max - min) * (1 + Math.cos(Math.PI * s / total)));
  }

  /** Linear warm-up from lr/steps to the inner schedule's start, then the inner schedule. */
  static Schedule warmup(long steps, Schedule inner) {
    return s -> s < steps ? inner.lr(0) * (float) ((s + 1.0) / steps) : inner.lr(s - steps);
  }
}
