package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.Rng;
import org.junit.jupiter.api.Test;

/** The vector kernels against the scalar references, over shapes that exercise every tile and tail. */
class KernelsTest {
  interface Mm {
    void run(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc);
  }

  static void check(Mm fast, Mm ref, int aSize, int bSize, int m, int n, int k) {
    Rng rng = new Rng(m * 1_000_003L + n * 1009L + k);
    int ao = 3, bo = 5, co = 7; // offsets, as slices of a flat buffer
    float[] a = DefaultPolicyTest.randomFloats(rng, ao + aSize, 1f), b = DefaultPolicyTest.randomFloats(rng, bo + bSize, 1f);
    for (boolean acc : new boolean[] {false, true}) {
      float[] c1 = DefaultPolicyTest.randomFloats(rng, co + m * n + 4, 1f), c2 = c1.clone();
      fast.run(a, ao, b, bo, c1, co, m, n, k, acc);
      ref.run(a, ao, b, bo, c2, co, m, n, k, acc);
      for (int i = 0; i < c1.length; i++) {
        // Rounding differs (FMA chains and lane-wise partial sums vs. a plain loop): |err| <= 1e-5 * k.
        assertThat(Math.abs(c1[i] - c2[i])).as("m=%d n=%d k=%d acc=%s at %d", m, n, k, acc, i).isLessThanOrEqualTo(1e-5f * k);
      }
    }
  }

  static final int[][] SHAPES = {{1, 1, 1}, {3, 5, 7}, {4, 64, 16}, {9, 70, 33}, {17, 130, 128}, {64, 128, 128}, {5, 384, 128},
      {33, 16, 384}, {8, 5, 128}, {2, 1, 400}, {6, 40, 600}, {3, 3, 0}};

  @Test
  void abMatchesScalar() {
    for (int[] s : SHAPES) check(Kernels::ab, Kernels::abScalar, s[0] * s[2], s[2] * s[1], s[0], s[1], s[2]);
  }

  @Test
  void atbMatchesScalar() {
    for (int[] s : SHAPES) check(Kernels::atb, Kernels::atbScalar, s[2] * s[0], s[2] * s[1], s[0], s[1], s[2]);
  }

  @Test
  void abtMatchesScalar() {
    for (int[] s : SHAPES) check(Kernels::abt, Kernels::abtScalar, s[0] * s[2], s[1] * s[2], s[0], s[1], s[2]);
  }

  @Test
  void rowSplitsGiveBitIdenticalResults() {
    // What the worker pool relies on: computing rows [0, m) at once or in pieces gives the same bits.
    Rng rng = new Rng(4);
    int m = 23, n = 100, k = 50;
    float[] a = DefaultPolicyTest.randomFloats(rng, m * k, 1f), b = DefaultPolicyTest.randomFloats(rng, k * n, 1f);
    float[] bt = DefaultPolicyTest.randomFloats(rng, n * k, 1f);
    float[] c1 = new float[m * n], c2 = new float[m * n], d1 = new float[m * n], d2 = new float[m * n];
    Kernels.broadcastRows(a, 0, k, 1, b, 0, c1, 0, 0, m, n, k, false);
    Kernels.abtRows(a, 0, bt, 0, d1, 0, 0, m, n, k, false);
    for (int[] r : new int[][] {{0, 5}, {5, 6}, {6, 13}, {13, 23}}) {
      Kernels.broadcastRows(a, 0, k, 1, b, 0, c2, 0, r[0], r[1], n, k, false);
      Kernels.abtRows(a, 0, bt, 0, d2, 0, r[0], r[1], n, k, false);
    }
    assertThat(c2).containsExactly(c1);
    assertThat(d2).containsExactly(d1);
  }

  @Test
  void expIsAccurateAndTheVectorAndScalarVersionsAgreeBitForBit() {
    Rng rng = new Rng(8);
    float[] x = new float[Kernels.V * 1000], y = new float[x.length];
    for (int i = 0; i < x.length; i++) x[i] = (float) (rng.nextDouble() * 170 - 85);
    x[0] = 0f;
    x[1] = -87f;
    x[2] = 88f;
    for (int i = 0; i < x.length; i += Kernels.V) {
      Kernels.exp(jdk.incubator.vector.FloatVector.fromArray(Kernels.F, x, i)).intoArray(y, i);
    }
    for (int i = 0; i < x.length; i++) {
      assertThat(Float.floatToRawIntBits(y[i])).isEqualTo(Float.floatToRawIntBits(Kernels.exp(x[i])));
      double want = Math.exp(x[i]);
      assertThat(Math.abs(y[i] - want) / want).as("exp(%s)", x[i]).isLessThan(3e-7);
    }
    assertThat(Kernels.sigmoid(0f)).isEqualTo(0.5f);
    assertThat(Kernels.sigmoid(-200f)).isGreaterThanOrEqualTo(0f);
    assertThat(Kernels.sigmoid(200f)).isEqualTo(1f);
  }

  @Test
  void sumLanesIsThePairwiseSum() {
    float[] v = new float[Kernels.V];
    for (int i = 0; i < v.length; i++) v[i] = 1f / (i + 3);
    float want = 0;
    for (float f : v) want += f;
    assertThat(Kernels.sumLanes(jdk.incubator.vector.FloatVector.fromArray(Kernels.F, v, 0))).isCloseTo(want, org.assertj.core.data.Offset.offset(1e-6f));
  }
}
