package dev.speedrun.nn;

/**
 * The {@link Kernels} products split by rows of C over a {@link Workers} pool (12-row grain, a
 * multiple of both register tiles' heights, 4 and 6), or a packed abt by columns (4V, a whole
 * number of tiles). Elements are independent, so the result is the same at every thread count. One
 * instance per caller; it is its own task, so a call allocates nothing.
 */
final class ParMm implements Workers.Task {
  private static final int AB = 0, ATB = 1, ABT = 2;
  private float[] a, b, c;
  private int ao, bo, co, m, n, k, kind;
  private boolean acc, pack, byCols;

  void ab(Workers w, float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    go(w, AB, a, ao, b, bo, c, co, m, n, k, acc);
  }

  void atb(Workers w, float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    go(w, ATB, a, ao, b, bo, c, co, m, n, k, acc);
  }

  void abt(Workers w, float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    go(w, ABT, a, ao, b, bo, c, co, m, n, k, acc);
  }

  private void go(Workers w, int kind, float[] a, int ao, float[] b, int bo, float[] c, int co, int m, int n, int k, boolean acc) {
    this.kind = kind;
    this.a = a;
    this.ao = ao;
    this.b = b;
    this.bo = bo;
    this.c = c;
    this.co = co;
    this.m = m;
    this.n = n;
    this.k = k;
    this.acc = acc;
    this.pack = kind == ABT && Kernels.abtPacks(m, n, k);
    this.byCols = pack && n >= 8 * Kernels.V;
    // Small products are not worth a wake-up. A packed abt wide enough for two column tiles is split
    // by columns, so each worker transposes only its own part of B (by rows, each would transpose all of it).
    if ((long) m * n * k < 32 * 1024) run(0, 0, byCols ? n : m);
    else if (byCols) w.run(this, n, 4 * Kernels.V);
    else w.run(this, m, 12);
    this.a = this.b = this.c = null;
  }

  @Override
  public void run(int worker, int from, int to) {
    switch (kind) {
      case AB -> Kernels.broadcastRows(a, ao, k, 1, b, bo, c, co, from, to, n, k, acc);
      case ATB -> Kernels.broadcastRows(a, ao, 1, m, b, bo, c, co, from, to, n, k, acc);
      default -> {
        if (byCols) Kernels.abtPacked(a, ao, b, bo, c, co, 0, m, from, to, n, k, acc);
        else Kernels.abtRows(a, ao, b, bo, c, co, from, to, n, k, acc, pack);
      }
    }
  }
}
