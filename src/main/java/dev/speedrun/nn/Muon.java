package dev.speedrun.nn;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Muon (Keller Jordan 2024, "Muon: MomentUm Orthogonalized by Newton-Schulz") for matrices, AdamW
 * for everything else (vectors, gains, and any tensor the selector leaves out).
 *
 * <p>Per matrix W[rows][cols] (a tensor of more than two dimensions is seen as [shape0][rest]):
 * <pre>
 *   M = mu M + (1 - mu) G                      momentum (PyTorch reference's lerp form)
 *   U = mu M + (1 - mu) G if nesterov else M
 *   X = NewtonSchulz5(U / ||U||_F)             ~ the orthogonal polar factor of U; five steps of
 *                                              X = a X + (b A + c A A) X, A = X X^T, with
 *                                              (a, b, c) = (3.4445, -4.7750, 2.0315), on the wide
 *                                              orientation (rows <= cols)
 *   W = W (1 - lr wd) - lr * scale * X,        scale = 0.2 sqrt(max(rows, cols)) (Moonshot's
 *                                              "Muon is scalable", 2025: matches AdamW's update
 *                                              RMS so one learning rate serves both groups)
 * </pre>
 * The quintic's coefficients trade exactness for speed: the singular values of X land in roughly
 * [0.7, 1.2] rather than at 1; {@link #orthogonalize} with the cubic (1.5, -0.5, 0) converges to 1.
 */
public final class Muon implements Optimizer {
  /**
   * @param momentum mu (0.95)
   * @param nesterov use the Nesterov form of the momentum (true)
   * @param nsSteps Newton-Schulz iterations (5)
   * @param weightDecay decoupled decay per unit learning rate, on matrices (0)
   * @param adam settings for the tensors Muon does not handle
   */
  public record Config(float momentum, boolean nesterov, int nsSteps, float weightDecay, AdamW.Config adam) {
    public static final Config DEFAULT = new Config(0.95f, true, 5, 0f, AdamW.Config.DEFAULT);
  }

  static final float NS_A = 3.4445f, NS_B = -4.7750f, NS_C = 2.0315f;

  private final Params p;
  private final Config c;
  private final boolean[] muon; // per tensor
  private final float[] m, v; // m: Muon momentum or Adam first moment; v: Adam second moment
  private final float[] x, tmp, a, aa; // Newton-Schulz scratch, sized for the largest matrix
  private long t;
  private Workers workers = SERIAL;
  private final ParMm mm = new ParMm();
  private static final Workers SERIAL = new Workers(1);

  /** Muon for every tensor with {@link Params.Tensor#isMatrix()}. */
  public Muon(Params p, Config c) {
    this(p, c, Params.Tensor::isMatrix);
  }

  /** Muon for the matrices {@code useMuon} selects (e.g. leave out embeddings and heads). */
  public Muon(Params p, Config c, Predicate<Params.Tensor> useMuon) {
    this.p = p;
    this.c = c;
    m = new float[p.size()];
    v = new float[p.size()];
    muon = new boolean[p.tensors().size()];
    int maxSize = 0, maxRows = 0;
    for (int i = 0; i < muon.length; i++) {
      Params.Tensor ts = p.tensors().get(i);
      muon[i] = ts.isMatrix() && useMuon.test(ts);
      if (muon[i]) {
        int r = ts.shape()[0], k = ts.size() / r;
        maxSize = Math.max(maxSize, ts.size());
        maxRows = Math.max(maxRows, Math.min(r, k));
      }
    }
    x = new float[maxSize];
    tmp = new float[maxSize];
    a = new float[maxRows * maxRows];
    aa = new float[maxRows * maxRows];
  }

  @Override
  public void step(float lr) {
    t++;
    float mu = c.momentum;
    for (int ti = 0; ti < muon.length; ti++) {
      Params.Tensor ts = p.tensors().get(ti);
      int off = ts.offset(), n = ts.size();
      if (!muon[ti]) {
        AdamW.update(p.data, p.grad, m, v, off, n, lr, c.adam.beta1(), c.adam.beta2(), c.adam.eps(), 0f, t);
        continue;
      }
      for (int i = 0; i < n; i++) {
        float g = p.grad[off + i];
        float mi = m[off + i] = mu * m[off + i] + (1 - mu) * g;
        x[i] = c.nesterov ? mu * mi + (1 - mu) * g : mi;
      }
      int rows = ts.shape()[0], cols = n / rows;
      orthogonalize(x, rows, cols, c.nsSteps, NS_A, NS_B, NS_C, tmp, a, aa, mm, workers);
      float scale = 0.2f * (float) Math.sqrt(Math.max(rows, cols));
      float decay = 1f - lr * c.weightDecay;
      for (int i = 0; i < n; i++) p.data[off + i] = p.data[off + i] * decay - lr * scale * x[i];
    }
  }

  /**
   * Newton-Schulz orthogonalization of g[rows][cols] in place: normalises by the Frobenius norm,
   * then iterates X = a X + (b A + c A A) X with A = X X^T on the orientation with rows <= cols
   * (transposing in and out when needed). Scratch: tmp [rows*cols], a and aa [min(rows,cols)^2].
   */
  public static void orthogonalize(float[] g, int rows, int cols, int steps, float ca, float cb, float cc,
      float[] tmp, float[] a, float[] aa) {
    orthogonalize(g, rows, cols, steps, ca, cb, cc, tmp, a, aa, new ParMm(), SERIAL);
  }

  /** Splits the Newton-Schulz products over {@code workers} (the bits do not depend on the thread count). */
  public void setWorkers(Workers workers) {
    this.workers = workers;
  }

  static void orthogonalize(float[] g, int rows, int cols, int steps, float ca, float cb, float cc,
      float[] tmp, float[] a, float[] aa, ParMm mm, Workers w) {
    int n = rows * cols;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (double) g[i] * g[i];
    float inv = (float) (1 / (Math.sqrt(ss) + 1e-7));
    boolean tall = rows > cols;
    int r = tall ? cols : rows, k = tall ? rows : cols;
    if (tall) { // g[rows][cols] -> tmp[cols][rows] -> g
      for (int i = 0; i < rows; i++) for (int j = 0; j < cols; j++) tmp[j * rows + i] = g[i * cols + j];
      System.arraycopy(tmp, 0, g, 0, n);
    }
    for (int i = 0; i < n; i++) g[i] *= inv;
    for (int s = 0; s < steps; s++) {
      mm.abt(w, g, 0, g, 0, a, 0, r, r, k, false); // A = X X^T      [r][r]
      mm.ab(w, a, 0, a, 0, aa, 0, r, r, r, false); // A A            [r][r]
      for (int i = 0; i < r * r; i++) aa[i] = cb * a[i] + cc * aa[i]; // B = b A + c A A
      mm.ab(w, aa, 0, g, 0, tmp, 0, r, k, r, false); // B X          [r][k]
      for (int i = 0; i < n; i++) g[i] = ca * g[i] + tmp[i];
    }
    if (tall) {
      for (int i = 0; i < r; i++) for (int j = 0; j < k; j++) tmp[j * r + i] = g[i * k + j];
      System.arraycopy(tmp, 0, g, 0, n);
    }
  }

  /** Whether the tensor named {@code name} takes Muon's orthogonalized update (else AdamW's). */
  public boolean orthogonalizes(String name) {
    for (int i = 0; i < muon.length; i++) if (p.tensors().get(i).name().equals(name)) return muon[i];
    throw new IllegalArgumentException("no tensor " + name);
  }

  @Override public long steps() { return t; }
  @Override public void setSteps(long steps) { t = steps; }

  @Override
  public Map<String, float[]> state() {
    Map<String, float[]> s = new LinkedHashMap<>();
    s.put("m", m);
    s.put("v", v);
    return s;
  }
}
