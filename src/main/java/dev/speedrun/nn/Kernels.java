package dev.speedrun.nn;

/**
 * Matrix products in the three layouts a layer's forward and backward passes need, on row-major
 * float arrays with offsets (so they work directly on slices of {@link Params} buffers).
 *
 * <pre>
 *   abt: C[m][n] (+)= sum_k A[m][k] * B[n][k]   forward of a Linear with PyTorch's W[out][in]
 *   ab:  C[m][n] (+)= sum_k A[m][k] * B[k][n]   input gradient dX = dY . W
 *   atb: C[m][n] (+)= sum_k A[k][m] * B[k][n]   weight gradient dW = dY^T . X
 * </pre>
 *
 * {@code acc} false overwrites C, true adds into it. The {@code *Scalar} versions are the plain
 * references the tests check the fast versions against.
 */
public final class Kernels {
  private Kernels() {}

  public static void abt(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    abtScalar(a, ao, b, bo, c, co, m, n, k, acc);
  }

  public static void ab(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    abScalar(a, ao, b, bo, c, co, m, n, k, acc);
  }

  public static void atb(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    atbScalar(a, ao, b, bo, c, co, m, n, k, acc);
  }

  public static void abtScalar(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        float s = 0f;
        for (int p = 0; p < k; p++) s += a[ao + i * k + p] * b[bo + j * k + p];
        int ci = co + i * n + j;
        c[ci] = acc ? c[ci] + s : s;
      }
    }
  }

  public static void abScalar(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    for (int i = 0; i < m; i++) {
      int ci = co + i * n;
      if (!acc) java.util.Arrays.fill(c, ci, ci + n, 0f);
      for (int p = 0; p < k; p++) {
        float av = a[ao + i * k + p];
        int bi = bo + p * n;
        for (int j = 0; j < n; j++) c[ci + j] += av * b[bi + j];
      }
    }
  }

  public static void atbScalar(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    if (!acc) java.util.Arrays.fill(c, co, co + m * n, 0f);
    for (int p = 0; p < k; p++) {
      for (int i = 0; i < m; i++) {
        float av = a[ao + p * m + i];
        int ci = co + i * n, bi = bo + p * n;
        for (int j = 0; j < n; j++) c[ci + j] += av * b[bi + j];
      }
    }
  }
}
