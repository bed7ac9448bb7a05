package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.Rng;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
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
      {33, 16, 384}, {8, 5, 128}, {2, 1, 400}, {6, 40, 600}, {3, 3, 0},
      // Edges of the 4x4-vector and 6x2-vector tiles and of the 4x4 / 2x4 dot-product tiles: m, n, k off
      // every tile multiple, k = 1, n < V, n < 4, more rows than a row block (36), k over a k-block (128).
      {8, 64, 1}, {7, 68, 130}, {13, 211, 5}, {61, 80, 300}, {6, 3, 20}, {16, 7, 1}, {4, 4, 16}, {5, 100, 17},
      {12, 200, 129}, {1, 70, 260},
      // Packed B panels and packed A rows (atb) over several row blocks (36) and k-blocks, with row and column tails; n = TW unpacked.
      {77, 140, 300}, {40, 64, 130}};

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
    // What the worker pool relies on: computing rows [0, m) at once or in pieces gives the same bits,
    // whether a row falls in a register tile or in the edge code for one split and not the other.
    for (int[] s : new int[][] {{23, 100, 50}, {23, 103, 1}, {23, 70, 37}, {23, 130, 160}, {23, 3, 17}, {23, 12, 40}}) {
      int m = s[0], n = s[1], k = s[2];
      Rng rng = new Rng(4 + n + k);
      float[] a = DefaultPolicyTest.randomFloats(rng, m * k, 1f), b = DefaultPolicyTest.randomFloats(rng, k * n, 1f);
      float[] bt = DefaultPolicyTest.randomFloats(rng, n * k, 1f), at = DefaultPolicyTest.randomFloats(rng, k * m, 1f);
      float[] c1 = new float[m * n], c2 = new float[m * n], d1 = new float[m * n], d2 = new float[m * n];
      float[] e1 = new float[m * n], e2 = new float[m * n];
      Kernels.broadcastRows(a, 0, k, 1, b, 0, c1, 0, 0, m, n, k, false);
      Kernels.abtRows(a, 0, bt, 0, d1, 0, 0, m, n, k, false, Kernels.abtPacks(m, n, k));
      Kernels.broadcastRows(at, 0, 1, m, b, 0, e1, 0, 0, m, n, k, false);
      for (int[] r : new int[][] {{0, 5}, {5, 6}, {6, 13}, {13, 23}}) {
        Kernels.broadcastRows(a, 0, k, 1, b, 0, c2, 0, r[0], r[1], n, k, false);
        Kernels.abtRows(a, 0, bt, 0, d2, 0, r[0], r[1], n, k, false, Kernels.abtPacks(m, n, k));
        Kernels.broadcastRows(at, 0, 1, m, b, 0, e2, 0, r[0], r[1], n, k, false);
      }
      assertThat(c2).as("ab %s", java.util.Arrays.toString(s)).containsExactly(c1);
      assertThat(d2).as("abt %s", java.util.Arrays.toString(s)).containsExactly(d1);
      assertThat(e2).as("atb %s", java.util.Arrays.toString(s)).containsExactly(e1);
    }
  }

  @Test
  void packedAbtIsTheAbChainOnBTransposed() {
    // Above the packing threshold, abt gives each element the bits of ab on an explicit B^T (one FMA
    // chain over p in order), across k-blocks (k > 128) and column tails (n % V != 0).
    for (int[] s : new int[][] {{16, 37, 300}, {20, 16, 1}, {33, 70, 129}}) {
      int m = s[0], n = s[1], k = s[2];
      assertThat(Kernels.abtPacks(m, n, k)).isTrue();
      Rng rng = new Rng(12 + k);
      float[] a = DefaultPolicyTest.randomFloats(rng, m * k, 1f), b = DefaultPolicyTest.randomFloats(rng, n * k, 1f);
      float[] bt = new float[k * n];
      for (int j = 0; j < n; j++) for (int p = 0; p < k; p++) bt[p * n + j] = b[j * k + p];
      float[] c1 = DefaultPolicyTest.randomFloats(rng, m * n, 1f), c2 = c1.clone();
      Kernels.abt(a, 0, b, 0, c1, 0, m, n, k, true);
      Kernels.ab(a, 0, bt, 0, c2, 0, m, n, k, true);
      assertThat(c1).containsExactly(c2);
    }
  }

  @Test
  void parallelProductsMatchOneThreadBitForBit() {
    // ParMm splits ab/atb by rows and a packed abt by columns (or rows when narrow); 1 and 2 threads
    // must agree exactly, and agree with the single-call kernels.
    try (Workers one = new Workers(1); Workers two = new Workers(2)) {
      for (int[] s : new int[][] {{64, 128, 128}, {70, 200, 33}, {256, 64, 64}, {9, 300, 40}, {100, 5, 64}}) {
        int m = s[0], n = s[1], k = s[2];
        Rng rng = new Rng(m + 7L * n + 13L * k);
        float[] a = DefaultPolicyTest.randomFloats(rng, m * k, 1f), b = DefaultPolicyTest.randomFloats(rng, Math.max(n, m) * k, 1f);
        float[] c0 = DefaultPolicyTest.randomFloats(rng, m * n, 1f);
        for (int kind = 0; kind < 3; kind++) {
          float[] c1 = c0.clone(), c2 = c0.clone(), c3 = c0.clone();
          ParMm mm = new ParMm();
          switch (kind) {
            case 0 -> { mm.ab(one, a, 0, b, 0, c1, 0, m, n, k, true); mm.ab(two, a, 0, b, 0, c2, 0, m, n, k, true); Kernels.ab(a, 0, b, 0, c3, 0, m, n, k, true); }
            case 1 -> { mm.atb(one, a, 0, b, 0, c1, 0, m, n, k, true); mm.atb(two, a, 0, b, 0, c2, 0, m, n, k, true); Kernels.atb(a, 0, b, 0, c3, 0, m, n, k, true); }
            default -> { mm.abt(one, a, 0, b, 0, c1, 0, m, n, k, true); mm.abt(two, a, 0, b, 0, c2, 0, m, n, k, true); Kernels.abt(a, 0, b, 0, c3, 0, m, n, k, true); }
          }
          assertThat(c2).as("kind %d %s", kind, java.util.Arrays.toString(s)).containsExactly(c1);
          assertThat(c3).as("kind %d %s", kind, java.util.Arrays.toString(s)).containsExactly(c1);
        }
      }
    }
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
  void activateGivesTheBitsOfTheScalarSigmoidAndGateInVectorLanesAndTail() {
    Rng rng = new Rng(9);
    int n = Kernels.V * 37 + 5; // a scalar tail too
    float[] x = new float[n + 3];
    for (int i = 0; i < x.length; i++) x[i] = (float) (rng.nextDouble() * 40 - 20);
    x[4] = 0f;
    x[5] = -0f;
    x[6] = -200f;
    for (boolean gate : new boolean[] {false, true}) {
      float[] y = x.clone();
      Kernels.activate(y, 3, n, gate); // an offset not a multiple of V
      for (int i = 0; i < x.length; i++) {
        float want = i < 3 || i >= 3 + n ? x[i] : gate && x[i] >= 0f ? x[i] + 0.5f : Kernels.sigmoid(x[i]);
        assertThat(Float.floatToRawIntBits(y[i])).as("gate %s, x[%d] = %s", gate, i, x[i]).isEqualTo(Float.floatToRawIntBits(want));
      }
    }
  }

  @Test
  void sumLanesIsThePairwiseSum() {
    float[] v = new float[Kernels.V];
    for (int i = 0; i < v.length; i++) v[i] = 1f / (i + 3);
    float want = 0;
    for (float f : v) want += f;
    assertThat(Kernels.sumLanes(jdk.incubator.vector.FloatVector.fromArray(Kernels.F, v, 0))).isCloseTo(want, org.assertj.core.data.Offset.offset(1e-6f));
  }

  /**
   * Runs must be reproducible bit for bit, so the network code may not use vector operations whose
   * result can differ between the interpreter's fallback and the JIT's intrinsic: reduceLanes (its
   * summation order is unspecified; Kernels.sumLanes fixes one) and the lanewise transcendentals
   * (Kernels.exp is built from add, mul and fma). A pool-and-inject backward that used reduceLanes
   * made two runs of the same recipe and seed part at their sixth iteration.
   */
  @Test
  void networkCodeUsesOnlyOperationsWithTheSameBitsBeforeAndAfterTheJit() throws IOException {
    Path dir = Path.of("src/main/java/dev/speedrun/nn");
    Pattern banned = Pattern.compile(
        "reduceLanes\\(|VectorOperators\\.(EXP|EXPM1|LOG|LOG1P|LOG10|TANH|SINH|COSH|SIN|COS|TAN|ASIN|ACOS|ATAN|ATAN2|POW|HYPOT|CBRT)\\b");
    List<String> found = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        if (f.getFileName().toString().equals("NnBench.java")) continue; // a benchmark, not training code
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String code = lines.get(i).replaceAll("//.*|^\\s*\\*.*|/\\*.*?\\*/", "");
          if (banned.matcher(code).find()) found.add(f.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
        }
      }
    }
    assertThat(found).as("JIT-dependent vector operations in %s", dir).isEmpty();
  }
}
