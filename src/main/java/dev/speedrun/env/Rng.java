package dev.speedrun.env;

/**
 * Small deterministic random numbers: SplitMix64 (Steele, Lea, Flood 2014) as a stream and as a
 * stateless mixer of (seed, a, b), so per-environment streams are derived, never shared.
 */
public final class Rng {
  private long state;

  public Rng(long seed) {
    this.state = seed;
  }

  public long state() { return state; }
  public void setState(long s) { state = s; }

  public long nextLong() {
    return mix64(state += 0x9E3779B97F4A7C15L);
  }

  /** Uniform in [0, bound). */
  public int nextInt(int bound) {
    return (int) Long.remainderUnsigned(nextLong(), bound);
  }

  /** Uniform in [0, 1). */
  public float nextFloat() {
    return (nextLong() >>> 40) * 0x1.0p-24f;
  }

  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A well-mixed value of (seed, a, b). */
  public static long mix(long seed, long a, long b) {
    return mix64(mix64(mix64(seed ^ 0x5851F42D4C957F2DL) + a * 0x9E3779B97F4A7C15L) + b);
  }
}
