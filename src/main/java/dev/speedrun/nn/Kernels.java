package dev.speedrun.nn;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

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

  /** The widest float species this CPU runs well (16 lanes with AVX-512); static final on purpose. */
  static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  static final int V = F.length();

  /** Shuffles pairing lane i with lane i ^ d for d = V/2, V/4, ..., 1. */
  private static final VectorShuffle<Float>[] FOLD = folds();

  @SuppressWarnings("unchecked")
  private static VectorShuffle<Float>[] folds() {
    int steps = Integer.numberOfTrailingZeros(V);
    VectorShuffle<Float>[] f = new VectorShuffle[steps];
    for (int s = 0; s < steps; s++) {
      int d = V >> (s + 1);
      f[s] = VectorShuffle.fromOp(F, i -> i ^ d);
    }
    return f;
  }

  /**
   * Sum of the lanes in a fixed pairwise order. Unlike {@code reduceLanes(ADD)}, whose order is
   * unspecified (the interpreter's fallback and the compiled intrinsic may differ), this gives
   * the same bits before and after the JIT compiles it.
   */
  static float sumLanes(FloatVector v) {
    for (VectorShuffle<Float> f : FOLD) v = v.add(v.rearrange(f));
    return v.lane(0);
  }

  /**
   * e^x for x in about [-87, 88] (clamped), within ~2 ulp: Cephes' expf (range reduction by
   * ln 2 in two parts, degree-6 polynomial). Only add/mul/fma and exact conversions, so the bits
   * are the same in the interpreter and in compiled code, unlike the EXP lanewise operator.
   */
  static FloatVector exp(FloatVector x) {
    x = x.max(-87.3f).min(88.3f);
    FloatVector t = x.fma(1.44269504088896341f, 12582912f); // round(x / ln2) + 1.5 * 2^23
    FloatVector k = t.sub(12582912f);
    FloatVector r = k.fma(bc(-0.693359375f), x);
    r = k.fma(bc(2.12194440e-4f), r);
    FloatVector p = r.fma(1.9875691500e-4f, 1.3981999507e-3f);
    p = p.fma(r, bc(8.3334519073e-3f));
    p = p.fma(r, bc(4.1665795894e-2f));
    p = p.fma(r, bc(1.6666665459e-1f));
    p = p.fma(r, bc(5.0000001201e-1f));
    FloatVector y = p.mul(r).fma(r, r).add(1f);
    IntVector bits = t.reinterpretAsInts().sub(0x4B400000 - 127).lanewise(VectorOperators.LSHL, 23);
    return y.mul(bits.reinterpretAsFloats());
  }

  private static FloatVector bc(float v) {
    return FloatVector.broadcast(F, v);
  }

  /** The scalar twin of {@link #exp(FloatVector)}: the same operations in the same order. */
  static float exp(float x) {
    x = Math.min(Math.max(x, -87.3f), 88.3f);
    float t = Math.fma(x, 1.44269504088896341f, 12582912f);
    float k = t - 12582912f;
    float r = Math.fma(k, -0.693359375f, x);
    r = Math.fma(k, 2.12194440e-4f, r);
    float p = Math.fma(r, 1.9875691500e-4f, 1.3981999507e-3f);
    p = Math.fma(p, r, 8.3334519073e-3f);
    p = Math.fma(p, r, 4.1665795894e-2f);
    p = Math.fma(p, r, 1.6666665459e-1f);
    p = Math.fma(p, r, 5.0000001201e-1f);
    float y = Math.fma(p * r, r, r) + 1f;
    return y * Float.intBitsToFloat((Float.floatToRawIntBits(t) - (0x4B400000 - 127)) << 23);
  }

  /** 1 / (1 + e^-x), built on {@link #exp(FloatVector)}. */
  static FloatVector sigmoid(FloatVector x) {
    return ONE.div(exp(x.neg()).add(1f));
  }

  static float sigmoid(float x) {
    return 1f / (exp(-x) + 1f);
  }

  private static final FloatVector ONE = FloatVector.broadcast(F, 1f);

  /**
   * In place over a[o..o+n): sigmoid(x), or with {@code gate} the minGRU candidate activation
   * (x + 0.5 if x >= 0, else sigmoid(x)). The same operations in the same order as
   * {@link #sigmoid(FloatVector)} and {@link #sigmoid(float)}, so the same bits, but written out in
   * one loop with no helper method taking or returning a vector: C2 gives up inlining small
   * methods into a large compilation unit (NodeCountInliningCutoff, "callee is too large"), and a
   * vector that crosses a call that was not inlined is boxed on the heap. Inside the training
   * step's big methods that made every sigmoid allocate, which cost more than all matrix products.
   */
  /**
   * dst[off + j] += sum over rows r of src[r * cols + j] (a bias gradient), each column summed in row
   * order from 0, rows outer so the reads run along memory (a column walk misses the cache on every
   * element); {@code acc} is scratch of at least cols floats.
   */
  static void colSum(float[] src, int rows, int cols, float[] dst, int off, float[] acc) {
    java.util.Arrays.fill(acc, 0, cols, 0f);
    for (int r = 0; r < rows; r++) for (int j = 0; j < cols; j++) acc[j] += src[r * cols + j];
    for (int j = 0; j < cols; j++) dst[off + j] += acc[j];
  }

  static void activate(float[] a, int o, int n, boolean gate) {
    FloatVector one = FloatVector.broadcast(F, 1f);
    FloatVector ln2hi = FloatVector.broadcast(F, -0.693359375f), ln2lo = FloatVector.broadcast(F, 2.12194440e-4f);
    FloatVector p2 = FloatVector.broadcast(F, 8.3334519073e-3f), p3 = FloatVector.broadcast(F, 4.1665795894e-2f);
    FloatVector p4 = FloatVector.broadcast(F, 1.6666665459e-1f), p5 = FloatVector.broadcast(F, 5.0000001201e-1f);
    int nv = n - n % V;
    for (int j = 0; j < nv; j += V) {
      FloatVector in = FloatVector.fromArray(F, a, o + j);
      // exp(-in), as exp(FloatVector)
      FloatVector x = in.neg().max(-87.3f).min(88.3f);
      FloatVector t = x.fma(1.44269504088896341f, 12582912f);
      FloatVector k = t.sub(12582912f);
      FloatVector r = k.fma(ln2hi, x);
      r = k.fma(ln2lo, r);
      FloatVector p = r.fma(1.9875691500e-4f, 1.3981999507e-3f);
      p = p.fma(r, p2);
      p = p.fma(r, p3);
      p = p.fma(r, p4);
      p = p.fma(r, p5);
      FloatVector y = p.mul(r).fma(r, r).add(1f);
      IntVector bits = t.reinterpretAsInts().sub(0x4B400000 - 127).lanewise(VectorOperators.LSHL, 23);
      FloatVector s = one.div(y.mul(bits.reinterpretAsFloats()).add(1f));
      if (gate) s = s.blend(in.add(0.5f), in.compare(VectorOperators.GE, 0f));
      s.intoArray(a, o + j);
    }
    for (int j = nv; j < n; j++) {
      float in = a[o + j];
      a[o + j] = gate && in >= 0f ? in + 0.5f : sigmoid(in);
    }
  }

  public static void abt(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    abtRows(a, ao, b, bo, c, co, 0, m, n, k, acc, abtPacks(m, n, k));
  }

  public static void ab(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    broadcastRows(a, ao, k, 1, b, bo, c, co, 0, m, n, k, acc);
  }

  public static void atb(float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    broadcastRows(a, ao, 1, m, b, bo, c, co, 0, m, n, k, acc);
  }

  /**
   * Rows [i0, i1) of C[m][n] (+)= sum_p A(i, p) * B[p][n], where A(i, p) = a[ao + i*ai + p*ap]:
   * {@code ab} has (ai, ap) = (k, 1), {@code atb} has (1, m). One broadcast of A per row and one
   * load of B per vector per p; each C element is the same FMA chain over p whatever tile it falls
   * in (tiles, tails and the scalar edge all run fma(A, B, c) in order of p), so results do not
   * depend on the tile shape, on packing, or on how rows are split between threads.
   *
   * <p>Packing (copies only, so no bits change): from {@link #PACK_ROWS} rows, each k-block of B's
   * tiled columns is copied into per-thread panels [tile][p][TW], contiguous, so a tile's panel
   * (KB x TW floats) sits in L1 without cache-set conflicts: B's own rows are n floats apart, and at
   * n = 128, 384 or 512 (strides of 512 B to 2 KB) the panel's rows fall on a quarter or less of L1's
   * sets and evict each other (at n = TW, B's rows already are one contiguous panel). For {@code atb}
   * (ai = 1) with at least two column tiles to reuse it, a row block's A is also copied into
   * [tile][p][TH], since A(i, p) and A(i, p + 1) are m floats apart (one cache set at m = 1024).
   */
  static void broadcastRows(float[] a, int ao, int ai, int ap, float[] b, int bo, float[] c, int co, int i0, int i1,
      int n, int k, boolean acc) {
    int nt = n - n % TW, kb0 = Math.min(KB, k);
    boolean packB = nt > 0 && n != TW && i1 - i0 >= PACK_ROWS, packA = ai == 1 && ap != 1 && i1 - i0 >= TH && nt >= 2 * TW;
    float[][] buf = packB || packA ? PACK.get() : null;
    float[] bp = packB ? grow(buf, 0, kb0 * nt) : null, pa = packA ? grow(buf, 1, MB * kb0) : null;
    // Blocks of KB along k keep B's panel in cache for long inner dimensions (weight gradients sum
    // over thousands of rows). Each C element still gets one FMA chain in order of p, stored and
    // reloaded between blocks, so blocking changes no bits.
    for (int p0 = 0; p0 < k; p0 += KB) {
      int kb = Math.min(KB, k - p0), bk = bo + p0 * n;
      boolean add = acc || p0 > 0;
      if (packB) {
        packPanels(b, bk, n, bp, nt, kb);
        broadcastBlock(a, ao + p0 * ap, ai, ap, pa, bp, 0, kb * TW, TW, b, bk + nt, n, c, co, n, i0, i1, n, kb, add);
      } else {
        broadcastBlock(a, ao + p0 * ap, ai, ap, pa, b, bk, TW, n, b, bk + nt, n, c, co, n, i0, i1, n, kb, add);
      }
    }
    if (k == 0 && !acc) for (int i = i0; i < i1; i++) java.util.Arrays.fill(c, co + i * n, co + i * n + n, 0f);
  }

  /** With 32 vector registers (AVX-512, 16 lanes) the register tile is 4 rows x 4 vectors, else 6 x 2 (AVX2's 16 registers). */
  static final boolean WIDE = V >= 16;

  /** Register tile: TH rows x TW columns. */
  static final int TW = WIDE ? 4 * V : 2 * V, TH = WIDE ? 4 : 6;

  /** k-block: a packed B panel of KB rows x one tile's columns stays in L1 (128 x 64 floats = 32 KB when wide). */
  static final int KB = WIDE ? 128 : 256;

  /**
   * Rows per block: a multiple of both tile heights; 36 rows of A at k = 128 (18 KB) and a tile's B
   * panel (32 KB) fit Zen 5's 48 KB L1 together (60 measured a few % slower).
   */
  static final int MB = 36;

  /** From this many rows (of a worker's share) B's panels are packed: fewer rows reuse them too little to pay for the copy. */
  static final int PACK_ROWS = 16;

  private static final VectorSpecies<Float> F4 = FloatVector.SPECIES_128;

  /** bp[t][p][0..TW) = b[bo + p*ldb + t*TW ..] for the nt / TW column tiles and p < kb. */
  private static void packPanels(float[] b, int bo, int ldb, float[] bp, int nt, int kb) {
    for (int j = 0, d = 0; j < nt; j += TW) {
      for (int p = 0, s = bo + j; p < kb; p++, s += ldb, d += TW) {
        for (int q = 0; q < TW; q += V) FloatVector.fromArray(F, b, s + q).intoArray(bp, d + q);
      }
    }
  }

  /** pa[t][p][0..TH) = A(ib + t*TH + r, p) for atb's A (A(i, p) = a[ao + p*ap + i]) over the full tiles of rows [ib, it). */
  private static void packRows(float[] a, int ao, int ap, int ib, int it, float[] pa, int k) {
    int tiles = (it - ib) / TH, step = k * TH;
    for (int p = 0; p < k; p++) {
      int s = ao + p * ap + ib, d = p * TH;
      if (TH == 4) {
        for (int t = 0; t < tiles; t++, s += 4, d += step) FloatVector.fromArray(F4, a, s).intoArray(pa, d);
      } else {
        for (int t = 0; t < tiles; t++, s += TH, d += step) System.arraycopy(a, s, pa, d, TH);
      }
    }
  }

  /**
   * One k-block of C[i0..i1)[0..n) (row stride ldc): rows in blocks of MB; inside a block, column
   * tiles outer so B's panel is reused. B's tiled columns [0, nt): tile t at bt[bto + t*tstep], row
   * stride ldt (packed: tstep = k*TW, ldt = TW; in place: tstep = TW, ldt = ldb); columns [nt, n):
   * column j at br[bro + j - nt], row stride ldr. A: pa (packed rows, see {@link #packRows}) for the
   * full tiles if not null, else a with strides (ai, ap). Register tile 4 x 4V (16 accumulators + 4 B
   * vectors + 1 broadcast of AVX-512's 32 registers) or 6 x 2V (12 + 2 + 1 of AVX2's 16). Leftover
   * rows in 1-row tiles, leftover columns in 4-row x 1-vector tiles, so tails keep several FMA chains
   * in flight; the last n % V columns in scalar.
   */
  private static void broadcastBlock(float[] a, int ao, int ai, int ap, float[] pa, float[] bt, int bto, int tstep, int ldt,
      float[] br, int bro, int ldr, float[] c, int co, int ldc, int i0, int i1, int n, int k, boolean acc) {
    int nt = n - n % TW, n1 = n - n % V;
    for (int ib = i0; ib < i1; ib += MB) {
      int ie = Math.min(i1, ib + MB), it = ib + (ie - ib) / TH * TH;
      if (pa != null) packRows(a, ao, ap, ib, it, pa, k);
      for (int j = 0, bj = bto; j < nt; j += TW, bj += tstep) {
        if (WIDE) {
          if (pa != null) {
            for (int i = ib, t = 0; i < it; i += 4, t += 4 * k) tile4x4(pa, t, 1, 4, bt, bj, c, co + i * ldc + j, ldt, ldc, k, acc);
          } else {
            for (int i = ib; i < it; i += 4) tile4x4(a, ao + i * ai, ai, ap, bt, bj, c, co + i * ldc + j, ldt, ldc, k, acc);
          }
        } else {
          if (pa != null) {
            for (int i = ib, t = 0; i < it; i += 6, t += 6 * k) tile6x2(pa, t, 1, 6, bt, bj, c, co + i * ldc + j, ldt, ldc, k, acc);
          } else {
            for (int i = ib; i < it; i += 6) tile6x2(a, ao + i * ai, ai, ap, bt, bj, c, co + i * ldc + j, ldt, ldc, k, acc);
          }
        }
      }
      // Rows [it, ie) over the tiled columns.
      for (int i = it; i < ie; i++) {
        for (int j = 0, bj = bto; j < nt; j += TW, bj += tstep) {
          if (WIDE) tile1x4(a, ao + i * ai, ai, ap, bt, bj, c, co + i * ldc + j, ldt, ldc, k, acc);
          else tile1x2(a, ao + i * ai, ap, bt, bj, c, co + i * ldc + j, ldt, k, acc);
        }
      }
      // Columns [nt, n1) over all rows of the block.
      for (int j = nt; j < n1; j += V) {
        int bj = bro + j - nt, i = ib;
        for (; i + 4 <= ie; i += 4) tile4x1(a, ao + i * ai, ai, ap, br, bj, c, co + i * ldc + j, ldr, ldc, k, acc);
        for (; i < ie; i++) row1(a, ao + i * ai, ap, br, bj, c, co + i * ldc + j, ldr, k, acc);
      }
      for (int i = ib; i < ie; i++) {
        for (int j = n1; j < n; j++) scalarElement(a, ao + i * ai, ap, br, bro + j - nt, ldr, c, co + i * ldc + j, k, acc);
      }
    }
  }

  /** C[1][2V] at c0 (+)= A row . B[k][2V] (AVX2's leftover rows): 2 accumulators. */
  private static void tile1x2(float[] a, int a0, int ap, float[] b, int bp, float[] c, int c0, int ldb, int k, boolean acc) {
    FloatVector x0 = acc ? FloatVector.fromArray(F, c, c0) : FloatVector.zero(F), x1 = acc ? FloatVector.fromArray(F, c, c0 + V) : FloatVector.zero(F);
    for (int p = 0; p < k; p++) {
      int bq = bp + p * ldb;
      FloatVector v = FloatVector.broadcast(F, a[a0 + p * ap]);
      x0 = v.fma(FloatVector.fromArray(F, b, bq), x0);
      x1 = v.fma(FloatVector.fromArray(F, b, bq + V), x1);
    }
    x0.intoArray(c, c0);
    x1.intoArray(c, c0 + V);
  }

  /** C[4][4V] at (i, j) (+)= A rows i.. . B[k][j..]: 16 accumulators, one broadcast of A per row and 4 loads of B per p. */
  private static void tile4x4(float[] a, int a0, int ai, int ap, float[] b, int bp, float[] c, int c0, int ldb, int ldc, int k, boolean acc) {
    int a1 = a0 + ai, a2 = a1 + ai, a3 = a2 + ai;
    int c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc;
    FloatVector x00, x01, x02, x03, x10, x11, x12, x13, x20, x21, x22, x23, x30, x31, x32, x33;
    if (acc) {
      x00 = FloatVector.fromArray(F, c, c0); x01 = FloatVector.fromArray(F, c, c0 + 1 * V); x02 = FloatVector.fromArray(F, c, c0 + 2 * V); x03 = FloatVector.fromArray(F, c, c0 + 3 * V);
      x10 = FloatVector.fromArray(F, c, c1); x11 = FloatVector.fromArray(F, c, c1 + 1 * V); x12 = FloatVector.fromArray(F, c, c1 + 2 * V); x13 = FloatVector.fromArray(F, c, c1 + 3 * V);
      x20 = FloatVector.fromArray(F, c, c2); x21 = FloatVector.fromArray(F, c, c2 + 1 * V); x22 = FloatVector.fromArray(F, c, c2 + 2 * V); x23 = FloatVector.fromArray(F, c, c2 + 3 * V);
      x30 = FloatVector.fromArray(F, c, c3); x31 = FloatVector.fromArray(F, c, c3 + 1 * V); x32 = FloatVector.fromArray(F, c, c3 + 2 * V); x33 = FloatVector.fromArray(F, c, c3 + 3 * V);
    } else {
      x00 = x01 = x02 = x03 = x10 = x11 = x12 = x13 = x20 = x21 = x22 = x23 = x30 = x31 = x32 = x33 = FloatVector.zero(F);
    }
    for (int p = 0; p < k; p++) {
      int bq = bp + p * ldb, pa = p * ap;
      FloatVector b0 = FloatVector.fromArray(F, b, bq), b1 = FloatVector.fromArray(F, b, bq + 1 * V), b2 = FloatVector.fromArray(F, b, bq + 2 * V), b3 = FloatVector.fromArray(F, b, bq + 3 * V);
      FloatVector v = FloatVector.broadcast(F, a[a0 + pa]);
      x00 = v.fma(b0, x00); x01 = v.fma(b1, x01); x02 = v.fma(b2, x02); x03 = v.fma(b3, x03);
      v = FloatVector.broadcast(F, a[a1 + pa]);
      x10 = v.fma(b0, x10); x11 = v.fma(b1, x11); x12 = v.fma(b2, x12); x13 = v.fma(b3, x13);
      v = FloatVector.broadcast(F, a[a2 + pa]);
      x20 = v.fma(b0, x20); x21 = v.fma(b1, x21); x22 = v.fma(b2, x22); x23 = v.fma(b3, x23);
      v = FloatVector.broadcast(F, a[a3 + pa]);
      x30 = v.fma(b0, x30); x31 = v.fma(b1, x31); x32 = v.fma(b2, x32); x33 = v.fma(b3, x33);
    }
    x00.intoArray(c, c0); x01.intoArray(c, c0 + 1 * V); x02.intoArray(c, c0 + 2 * V); x03.intoArray(c, c0 + 3 * V);
    x10.intoArray(c, c1); x11.intoArray(c, c1 + 1 * V); x12.intoArray(c, c1 + 2 * V); x13.intoArray(c, c1 + 3 * V);
    x20.intoArray(c, c2); x21.intoArray(c, c2 + 1 * V); x22.intoArray(c, c2 + 2 * V); x23.intoArray(c, c2 + 3 * V);
    x30.intoArray(c, c3); x31.intoArray(c, c3 + 1 * V); x32.intoArray(c, c3 + 2 * V); x33.intoArray(c, c3 + 3 * V);
  }

  /** C[4][1V] at (i, j) (+)= A rows i.. . B[k][j..]: 4 accumulators, one broadcast of A per row and one load of B per p. */
  private static void tile4x1(float[] a, int a0, int ai, int ap, float[] b, int bp, float[] c, int c0, int ldb, int ldc, int k, boolean acc) {
    int a1 = a0 + ai, a2 = a1 + ai, a3 = a2 + ai;
    int c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc;
    FloatVector x00, x10, x20, x30;
    if (acc) {
      x00 = FloatVector.fromArray(F, c, c0);
      x10 = FloatVector.fromArray(F, c, c1);
      x20 = FloatVector.fromArray(F, c, c2);
      x30 = FloatVector.fromArray(F, c, c3);
    } else {
      x00 = x10 = x20 = x30 = FloatVector.zero(F);
    }
    for (int p = 0; p < k; p++) {
      int bq = bp + p * ldb, pa = p * ap;
      FloatVector b0 = FloatVector.fromArray(F, b, bq);
      FloatVector v = FloatVector.broadcast(F, a[a0 + pa]);
      x00 = v.fma(b0, x00);
      v = FloatVector.broadcast(F, a[a1 + pa]);
      x10 = v.fma(b0, x10);
      v = FloatVector.broadcast(F, a[a2 + pa]);
      x20 = v.fma(b0, x20);
      v = FloatVector.broadcast(F, a[a3 + pa]);
      x30 = v.fma(b0, x30);
    }
    x00.intoArray(c, c0);
    x10.intoArray(c, c1);
    x20.intoArray(c, c2);
    x30.intoArray(c, c3);
  }

  /** C[1][4V] at (i, j) (+)= A row i . B[k][j..]: 4 accumulators, one broadcast of A and 4 loads of B per p. */
  private static void tile1x4(float[] a, int a0, int ai, int ap, float[] b, int bp, float[] c, int c0, int ldb, int ldc, int k, boolean acc) {
    FloatVector x00, x01, x02, x03;
    if (acc) {
      x00 = FloatVector.fromArray(F, c, c0); x01 = FloatVector.fromArray(F, c, c0 + 1 * V); x02 = FloatVector.fromArray(F, c, c0 + 2 * V); x03 = FloatVector.fromArray(F, c, c0 + 3 * V);
    } else {
      x00 = x01 = x02 = x03 = FloatVector.zero(F);
    }
    for (int p = 0; p < k; p++) {
      int bq = bp + p * ldb, pa = p * ap;
      FloatVector b0 = FloatVector.fromArray(F, b, bq), b1 = FloatVector.fromArray(F, b, bq + 1 * V), b2 = FloatVector.fromArray(F, b, bq + 2 * V), b3 = FloatVector.fromArray(F, b, bq + 3 * V);
      FloatVector v = FloatVector.broadcast(F, a[a0 + pa]);
      x00 = v.fma(b0, x00); x01 = v.fma(b1, x01); x02 = v.fma(b2, x02); x03 = v.fma(b3, x03);
    }
    x00.intoArray(c, c0); x01.intoArray(c, c0 + 1 * V); x02.intoArray(c, c0 + 2 * V); x03.intoArray(c, c0 + 3 * V);
  }


  /** C[6][2V] at (i, j) (+)= A rows i.. . B[k][j..]: the classic AVX2 sgemm shape. */
  private static void tile6x2(float[] a, int a0, int ai, int ap, float[] b, int bp, float[] c, int c0, int ldb, int ldc, int k, boolean acc) {
    int a1 = a0 + ai, a2 = a1 + ai, a3 = a2 + ai, a4 = a3 + ai, a5 = a4 + ai;
    int c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc, c4 = c3 + ldc, c5 = c4 + ldc;
    FloatVector x00, x01, x10, x11, x20, x21, x30, x31, x40, x41, x50, x51;
    if (acc) {
      x00 = FloatVector.fromArray(F, c, c0); x01 = FloatVector.fromArray(F, c, c0 + V);
      x10 = FloatVector.fromArray(F, c, c1); x11 = FloatVector.fromArray(F, c, c1 + V);
      x20 = FloatVector.fromArray(F, c, c2); x21 = FloatVector.fromArray(F, c, c2 + V);
      x30 = FloatVector.fromArray(F, c, c3); x31 = FloatVector.fromArray(F, c, c3 + V);
      x40 = FloatVector.fromArray(F, c, c4); x41 = FloatVector.fromArray(F, c, c4 + V);
      x50 = FloatVector.fromArray(F, c, c5); x51 = FloatVector.fromArray(F, c, c5 + V);
    } else {
      x00 = x01 = x10 = x11 = x20 = x21 = x30 = x31 = x40 = x41 = x50 = x51 = FloatVector.zero(F);
    }
    for (int p = 0; p < k; p++) {
      int bq = bp + p * ldb, pa = p * ap;
      FloatVector b0 = FloatVector.fromArray(F, b, bq), b1 = FloatVector.fromArray(F, b, bq + V);
      FloatVector v = FloatVector.broadcast(F, a[a0 + pa]);
      x00 = v.fma(b0, x00); x01 = v.fma(b1, x01);
      v = FloatVector.broadcast(F, a[a1 + pa]);
      x10 = v.fma(b0, x10); x11 = v.fma(b1, x11);
      v = FloatVector.broadcast(F, a[a2 + pa]);
      x20 = v.fma(b0, x20); x21 = v.fma(b1, x21);
      v = FloatVector.broadcast(F, a[a3 + pa]);
      x30 = v.fma(b0, x30); x31 = v.fma(b1, x31);
      v = FloatVector.broadcast(F, a[a4 + pa]);
      x40 = v.fma(b0, x40); x41 = v.fma(b1, x41);
      v = FloatVector.broadcast(F, a[a5 + pa]);
      x50 = v.fma(b0, x50); x51 = v.fma(b1, x51);
    }
    x00.intoArray(c, c0); x01.intoArray(c, c0 + V);
    x10.intoArray(c, c1); x11.intoArray(c, c1 + V);
    x20.intoArray(c, c2); x21.intoArray(c, c2 + V);
    x30.intoArray(c, c3); x31.intoArray(c, c3 + V);
    x40.intoArray(c, c4); x41.intoArray(c, c4 + V);
    x50.intoArray(c, c5); x51.intoArray(c, c5 + V);
  }

  /** C[1][V] at c0 (+)= A(one row from a0, p stride ap) . B[k][V] at b0 (row stride ldb). */
  private static void row1(float[] a, int a0, int ap, float[] b, int b0, float[] c, int c0, int ldb, int k, boolean acc) {
    FloatVector x0 = acc ? FloatVector.fromArray(F, c, c0) : FloatVector.zero(F);
    for (int p = 0; p < k; p++) x0 = FloatVector.broadcast(F, a[a0 + p * ap]).fma(FloatVector.fromArray(F, b, b0 + p * ldb), x0);
    x0.intoArray(c, c0);
  }

  /** One element by the same FMA chain as the vector lanes (so tails agree with tiles bit for bit). */
  private static void scalarElement(float[] a, int a0, int ap, float[] b, int b0, int n, float[] c, int ci, int k, boolean acc) {
    float s = acc ? c[ci] : 0f;
    for (int p = 0; p < k; p++) s = Math.fma(a[a0 + p * ap], b[b0 + p * n], s);
    c[ci] = s;
  }

  /**
   * Whether {@code abt} at C[m][n], inner k transposes B (a k-block at a time, into a per-thread
   * buffer) and runs the {@code ab} kernel on it: from 16 rows the transposition (n*k moves per
   * call) is small beside the m*n*k FMAs and the register tile runs near peak, where dot products
   * along k spend as long on their lane reductions as on the FMAs. Decided on the whole product, not
   * on a worker's rows, so every thread count computes every element the same way.
   */
  static boolean abtPacks(int m, int n, int k) {
    return m >= 16 && n >= V && k > 0;
  }

  /**
   * Rows [i0, i1) of C[m][n] (+)= A[m][k] . B[n][k]^T. With {@code pack} (see {@link #abtPacks}),
   * {@link #abtPacked} over all columns; otherwise {@link #abtDotRows}.
   */
  static void abtRows(float[] a, int ao, float[] b, int bo, float[] c, int co, int i0, int i1, int n, int k, boolean acc,
      boolean pack) {
    if (pack) abtPacked(a, ao, b, bo, c, co, i0, i1, 0, n, n, k, acc);
    else abtDotRows(a, ao, b, bo, c, co, i0, i1, n, k, acc);
  }

  /**
   * C[i0..i1)[j0..j1) (+)= A . B^T for C[m][n]: each k-block of rows j0..j1 of B is transposed into
   * the packed layout of {@link #broadcastRows} (panels [tile][p][TW], then the leftover columns as
   * [p][w - nt]) and {@link #broadcastBlock} runs on it, so each element is the same FMA chain over p
   * as in {@code ab}, whichever rows and columns a worker was given.
   */
  static void abtPacked(float[] a, int ao, float[] b, int bo, float[] c, int co, int i0, int i1, int j0, int j1, int n, int k,
      boolean acc) {
    int w = j1 - j0;
    if (w <= 0) return;
    int nt = w - w % TW;
    float[] bt = grow(PACK.get(), 0, Math.min(KB, k) * w);
    for (int p0 = 0; p0 < k; p0 += KB) {
      int kb = Math.min(KB, k - p0);
      transpose(b, bo + j0 * k + p0, k, bt, w, nt, kb);
      broadcastBlock(a, ao + p0, k, 1, null, bt, 0, kb * TW, TW, bt, kb * nt, w - nt, c, co + j0, n, i0, i1, w, kb, acc || p0 > 0);
    }
  }

  /**
   * B^T of rows [0, w) and columns [0, kb) of b (row stride k) in packed layout: column j < nt at
   * bt[(j / TW) * kb * TW + p * TW + j % TW], j >= nt at bt[kb * nt + p * (w - nt) + j - nt]. V rows of
   * B at a time by gathers (one vector of Bt per p), the last w % V in scalar.
   */
  private static void transpose(float[] b, int bo, int k, float[] bt, int w, int nt, int kb) {
    int[] idx = gatherIndex(k);
    int j = 0, lr = w - nt;
    for (; j + V <= w; j += V) {
      int r0 = bo + j * k, o = j < nt ? (j / TW) * kb * TW + j % TW : kb * nt + j - nt, ld = j < nt ? TW : lr;
      int p = 0;
      if (V == 16) for (; p + 16 <= kb; p += 16, o += 16 * ld) transpose16(b, r0 + p, k, bt, o, ld);
      for (; p < kb; p++, o += ld) FloatVector.fromArray(F, b, r0 + p, idx, 0).intoArray(bt, o);
    }
    for (; j < w; j++) {
      int r = bo + j * k;
      for (int p = 0, o = kb * nt + j - nt; p < kb; p++, o += lr) bt[o] = b[r + p];
    }
  }

  /** Two-source index vectors for {@link #transpose16}: stage s swaps bit d = 8 >> s of the row index with bit d of the lane index. */
  private static final FloatVector[] TLO = swapIndex(false), THI = swapIndex(true);

  private static FloatVector[] swapIndex(boolean hi) {
    FloatVector[] out = new FloatVector[4];
    if (V != 16) return out;
    for (int s = 0; s < 4; s++) {
      int d = 8 >> s;
      float[] ix = new float[16];
      for (int l = 0; l < 16; l++) ix[l] = (l & d) == 0 ? (hi ? l + d : l) : (hi ? 16 + l : 16 + l - d);
      out[s] = FloatVector.fromArray(F, ix, 0);
    }
    return out;
  }

  /**
   * 16 x 16 block of B (rows at b[r0 + q*k ..], 16 columns) transposed in registers (4 stages of 16
   * two-source permutes) and stored as 16 vectors at bt[o + q*ld]: a vector gather per output costs
   * about twice as much on Zen 5. Data movement only; AVX-512 (V = 16) only.
   */
  private static void transpose16(float[] b, int r0, int k, float[] bt, int o, int ld) {
    FloatVector x0 = FloatVector.fromArray(F, b, r0 + 0 * k); FloatVector x1 = FloatVector.fromArray(F, b, r0 + 1 * k); FloatVector x2 = FloatVector.fromArray(F, b, r0 + 2 * k); FloatVector x3 = FloatVector.fromArray(F, b, r0 + 3 * k); FloatVector x4 = FloatVector.fromArray(F, b, r0 + 4 * k); FloatVector x5 = FloatVector.fromArray(F, b, r0 + 5 * k); FloatVector x6 = FloatVector.fromArray(F, b, r0 + 6 * k); FloatVector x7 = FloatVector.fromArray(F, b, r0 + 7 * k); FloatVector x8 = FloatVector.fromArray(F, b, r0 + 8 * k); FloatVector x9 = FloatVector.fromArray(F, b, r0 + 9 * k); FloatVector x10 = FloatVector.fromArray(F, b, r0 + 10 * k); FloatVector x11 = FloatVector.fromArray(F, b, r0 + 11 * k); FloatVector x12 = FloatVector.fromArray(F, b, r0 + 12 * k); FloatVector x13 = FloatVector.fromArray(F, b, r0 + 13 * k); FloatVector x14 = FloatVector.fromArray(F, b, r0 + 14 * k); FloatVector x15 = FloatVector.fromArray(F, b, r0 + 15 * k);
    FloatVector lo, hi;
    lo = TLO[0]; hi = THI[0];
    { FloatVector u = x0, v = x8; x0 = lo.selectFrom(u, v); x8 = hi.selectFrom(u, v); } { FloatVector u = x1, v = x9; x1 = lo.selectFrom(u, v); x9 = hi.selectFrom(u, v); } { FloatVector u = x2, v = x10; x2 = lo.selectFrom(u, v); x10 = hi.selectFrom(u, v); } { FloatVector u = x3, v = x11; x3 = lo.selectFrom(u, v); x11 = hi.selectFrom(u, v); } { FloatVector u = x4, v = x12; x4 = lo.selectFrom(u, v); x12 = hi.selectFrom(u, v); } { FloatVector u = x5, v = x13; x5 = lo.selectFrom(u, v); x13 = hi.selectFrom(u, v); } { FloatVector u = x6, v = x14; x6 = lo.selectFrom(u, v); x14 = hi.selectFrom(u, v); } { FloatVector u = x7, v = x15; x7 = lo.selectFrom(u, v); x15 = hi.selectFrom(u, v); }
    lo = TLO[1]; hi = THI[1];
    { FloatVector u = x0, v = x4; x0 = lo.selectFrom(u, v); x4 = hi.selectFrom(u, v); } { FloatVector u = x1, v = x5; x1 = lo.selectFrom(u, v); x5 = hi.selectFrom(u, v); } { FloatVector u = x2, v = x6; x2 = lo.selectFrom(u, v); x6 = hi.selectFrom(u, v); } { FloatVector u = x3, v = x7; x3 = lo.selectFrom(u, v); x7 = hi.selectFrom(u, v); } { FloatVector u = x8, v = x12; x8 = lo.selectFrom(u, v); x12 = hi.selectFrom(u, v); } { FloatVector u = x9, v = x13; x9 = lo.selectFrom(u, v); x13 = hi.selectFrom(u, v); } { FloatVector u = x10, v = x14; x10 = lo.selectFrom(u, v); x14 = hi.selectFrom(u, v); } { FloatVector u = x11, v = x15; x11 = lo.selectFrom(u, v); x15 = hi.selectFrom(u, v); }
    lo = TLO[2]; hi = THI[2];
    { FloatVector u = x0, v = x2; x0 = lo.selectFrom(u, v); x2 = hi.selectFrom(u, v); } { FloatVector u = x1, v = x3; x1 = lo.selectFrom(u, v); x3 = hi.selectFrom(u, v); } { FloatVector u = x4, v = x6; x4 = lo.selectFrom(u, v); x6 = hi.selectFrom(u, v); } { FloatVector u = x5, v = x7; x5 = lo.selectFrom(u, v); x7 = hi.selectFrom(u, v); } { FloatVector u = x8, v = x10; x8 = lo.selectFrom(u, v); x10 = hi.selectFrom(u, v); } { FloatVector u = x9, v = x11; x9 = lo.selectFrom(u, v); x11 = hi.selectFrom(u, v); } { FloatVector u = x12, v = x14; x12 = lo.selectFrom(u, v); x14 = hi.selectFrom(u, v); } { FloatVector u = x13, v = x15; x13 = lo.selectFrom(u, v); x15 = hi.selectFrom(u, v); }
    lo = TLO[3]; hi = THI[3];
    { FloatVector u = x0, v = x1; x0 = lo.selectFrom(u, v); x1 = hi.selectFrom(u, v); } { FloatVector u = x2, v = x3; x2 = lo.selectFrom(u, v); x3 = hi.selectFrom(u, v); } { FloatVector u = x4, v = x5; x4 = lo.selectFrom(u, v); x5 = hi.selectFrom(u, v); } { FloatVector u = x6, v = x7; x6 = lo.selectFrom(u, v); x7 = hi.selectFrom(u, v); } { FloatVector u = x8, v = x9; x8 = lo.selectFrom(u, v); x9 = hi.selectFrom(u, v); } { FloatVector u = x10, v = x11; x10 = lo.selectFrom(u, v); x11 = hi.selectFrom(u, v); } { FloatVector u = x12, v = x13; x12 = lo.selectFrom(u, v); x13 = hi.selectFrom(u, v); } { FloatVector u = x14, v = x15; x14 = lo.selectFrom(u, v); x15 = hi.selectFrom(u, v); }
    x0.intoArray(bt, o + 0 * ld); x1.intoArray(bt, o + 1 * ld); x2.intoArray(bt, o + 2 * ld); x3.intoArray(bt, o + 3 * ld); x4.intoArray(bt, o + 4 * ld); x5.intoArray(bt, o + 5 * ld); x6.intoArray(bt, o + 6 * ld); x7.intoArray(bt, o + 7 * ld); x8.intoArray(bt, o + 8 * ld); x9.intoArray(bt, o + 9 * ld); x10.intoArray(bt, o + 10 * ld); x11.intoArray(bt, o + 11 * ld); x12.intoArray(bt, o + 12 * ld); x13.intoArray(bt, o + 13 * ld); x14.intoArray(bt, o + 14 * ld); x15.intoArray(bt, o + 15 * ld);
  }

  private static final ThreadLocal<int[]> GATHER = ThreadLocal.withInitial(() -> new int[V]);

  /** {0, k, 2k, ...}: the lanes of one column of V rows of B (per thread, rewritten when k changes). */
  private static int[] gatherIndex(int k) {
    int[] idx = GATHER.get();
    if (idx[1 % V] != k) for (int l = 0; l < V; l++) idx[l] = l * k;
    return idx;
  }

  /** Per-thread packing buffers (0: B panels or B^T, 1: A rows), grown when a product needs more (never per call). */
  private static final ThreadLocal<float[][]> PACK = ThreadLocal.withInitial(() -> new float[2][0]);

  private static float[] grow(float[][] holder, int slot, int size) {
    if (holder[slot].length < size) holder[slot] = new float[Math.max(size, holder[slot].length * 2)];
    return holder[slot];
  }

  /**
   * Rows [i0, i1) of C[m][n] (+)= A[m][k] . B[n][k]^T by dot products along k, for products too
   * small to pay for packing (few rows, or n < V: the policy's logits and value heads): a tile of 2
   * rows of A by 4 rows of B (8 vector accumulators, each reduced by {@link #sumLanes}), k tail in scalar.
   */
  static void abtDotRows(float[] a, int ao, float[] b, int bo, float[] c, int co, int i0, int i1, int n, int k, boolean acc) {
    int kv = k - k % V;
    int i = i0;
    for (; i + 2 <= i1; i += 2) {
      int a0 = ao + i * k, a1 = a0 + k, c0 = co + i * n, c1 = c0 + n;
      int j = 0;
      for (; j + 4 <= n; j += 4) {
        int b0 = bo + j * k, b1 = b0 + k, b2 = b1 + k, b3 = b2 + k;
        FloatVector s00 = FloatVector.zero(F), s01 = s00, s02 = s00, s03 = s00, s10 = s00, s11 = s00, s12 = s00, s13 = s00;
        for (int p = 0; p < kv; p += V) {
          FloatVector x0 = FloatVector.fromArray(F, a, a0 + p), x1 = FloatVector.fromArray(F, a, a1 + p);
          FloatVector y = FloatVector.fromArray(F, b, b0 + p);
          s00 = x0.fma(y, s00); s10 = x1.fma(y, s10);
          y = FloatVector.fromArray(F, b, b1 + p);
          s01 = x0.fma(y, s01); s11 = x1.fma(y, s11);
          y = FloatVector.fromArray(F, b, b2 + p);
          s02 = x0.fma(y, s02); s12 = x1.fma(y, s12);
          y = FloatVector.fromArray(F, b, b3 + p);
          s03 = x0.fma(y, s03); s13 = x1.fma(y, s13);
        }
        store(c, c0 + j, s00, a, a0, b, b0, kv, k, acc);
        store(c, c0 + j + 1, s01, a, a0, b, b1, kv, k, acc);
        store(c, c0 + j + 2, s02, a, a0, b, b2, kv, k, acc);
        store(c, c0 + j + 3, s03, a, a0, b, b3, kv, k, acc);
        store(c, c1 + j, s10, a, a1, b, b0, kv, k, acc);
        store(c, c1 + j + 1, s11, a, a1, b, b1, kv, k, acc);
        store(c, c1 + j + 2, s12, a, a1, b, b2, kv, k, acc);
        store(c, c1 + j + 3, s13, a, a1, b, b3, kv, k, acc);
      }
      for (; j < n; j++) {
        dotInto(a, a0, b, bo + j * k, c, c0 + j, kv, k, acc);
        dotInto(a, a1, b, bo + j * k, c, c1 + j, kv, k, acc);
      }
    }
    for (; i < i1; i++) {
      for (int j = 0; j < n; j++) dotInto(a, ao + i * k, b, bo + j * k, c, co + i * n + j, kv, k, acc);
    }
  }

  private static void dotInto(float[] a, int a0, float[] b, int b0, float[] c, int ci, int kv, int k, boolean acc) {
    FloatVector s = FloatVector.zero(F);
    for (int p = 0; p < kv; p += V) s = FloatVector.fromArray(F, a, a0 + p).fma(FloatVector.fromArray(F, b, b0 + p), s);
    store(c, ci, s, a, a0, b, b0, kv, k, acc);
  }

  private static void store(float[] c, int ci, FloatVector s, float[] a, int a0, float[] b, int b0, int kv, int k, boolean acc) {
    float v = sumLanes(s);
    for (int p = kv; p < k; p++) v = Math.fma(a[a0 + p], b[b0 + p], v);
    c[ci] = acc ? c[ci] + v : v;
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
