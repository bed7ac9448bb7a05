package dev.speedrun.nn;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW (Loshchilov and Hutter 2019: Adam with decoupled weight decay) over the whole flat buffer:
 *
 * <pre>
 *   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
 *   p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + lr * wd * p   (wd on matrices only)
 * </pre>
 */
public final class AdamW implements Optimizer {
  /**
   * @param beta1 first-moment decay (0.9)
   * @param beta2 second-moment decay (0.999)
   * @param eps added to the root of the second moment (1e-8)
   * @param weightDecay decoupled decay per unit learning rate, applied to matrices only (0)
   */
  public record Config(float beta1, float beta2, float eps, float weightDecay) {
    public static final Config DEFAULT = new Config(0.9f, 0.999f, 1e-8f, 0f);
  }

  private final Params p;
  private final Config c;
  private final float[] m, v;
  private long t;

  public AdamW(Params p, Config c) {
    this.p = p;
    this.c = c;
    m = new float[p.size()];
    v = new float[p.size()];
  }

  @Override
  public void step(float lr) {
    t++;
    for (Params.Tensor ts : p.tensors()) {
      update(p.data, p.grad, m, v, ts.offset(), ts.size(), lr, c.beta1, c.beta2, c.eps, ts.isMatrix() ? c.weightDecay : 0f, t);
    }
  }

  /** The Adam update of one slice; shared with {@link Muon} for its vectors and gains. */
  static void update(float[] w, float[] g, float[] m, float[] v, int off, int len, float lr, float b1, float b2, float eps,
      float wd, long t) {
    float bc1 = (float) (1 - Math.pow(b1, t)), bc2 = (float) (1 - Math.pow(b2, t));
    float step = lr / bc1, invBc2 = 1f / bc2, decay = 1f - lr * wd;
    for (int i = off; i < off + len; i++) {
      float gi = g[i];
      float mi = m[i] = b1 * m[i] + (1 - b1) * gi;
      float vi = v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      w[i] = w[i] * decay - step * mi / ((float) Math.sqrt(vi * invBc2) + eps);
    }
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
