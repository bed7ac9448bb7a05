package dev.speedrun.nn;

/**
 * Layers beyond the default policy's, as forward/backward pairs in the style of llm.c: plain
 * static functions over row-major float arrays (parameters as offsets into a {@link Params}
 * buffer), activations kept by the caller. Backward functions ADD into their gradient outputs
 * ({@code d...}), so gradients from several uses accumulate.
 *
 * <pre>
 * Legend: N rows (samples, or T*B); C channels/features; P cells of a grid (Hh * W, 100 for
 * Boxoban); Ci/Co conv input/output channels; Hd hidden width of a recurrent cell.
 * </pre>
 *
 * Each function is checked against central finite differences in {@code LayersTest}.
 */
public final class Layers {
  private Layers() {}

  // ---------------------------------------------------------------- linear layers

  /** out[N][O] = x[N][I] . w^T + b, with PyTorch's w [O][I] at wo and b [O] at bo. */
  public static void linearForward(float[] out, float[] x, float[] p, int wo, int bo, int n, int in, int outDim) {
    for (int r = 0; r < n; r++) System.arraycopy(p, bo, out, r * outDim, outDim);
    Kernels.abt(x, 0, p, wo, out, 0, n, outDim, in, true);
  }

  /** dx[N][I] += dout . w;  dw[O][I] += dout^T . x;  db[O] += column sums of dout. */
  public static void linearBackward(float[] dx, float[] g, int wo, int bo, float[] dout, float[] x, float[] p, int n, int in, int outDim) {
    if (dx != null) Kernels.ab(dout, 0, p, wo, dx, 0, n, in, outDim, true);
    Kernels.atb(dout, 0, x, 0, g, wo, outDim, in, n, true);
    for (int r = 0; r < n; r++) for (int o = 0; o < outDim; o++) g[bo + o] += dout[r * outDim + o];
  }

  /**
   * Linear over a sparse 0/1 input as a gather-sum: out[N][O] = b + sum over the active indices i
   * of row r of w[i][:], with w stored [I][O] (an embedding table) at wo. Row r's active indices
   * are idx[r*stride .. r*stride + count[r]).
   */
  public static void sparseLinearForward(float[] out, int[] idx, int[] count, int stride, float[] p, int wo, int bo, int n, int outDim) {
    for (int r = 0; r < n; r++) {
      int o = r * outDim;
      System.arraycopy(p, bo, out, o, outDim);
      for (int q = 0; q < count[r]; q++) {
        int w = wo + idx[r * stride + q] * outDim;
        for (int j = 0; j < outDim; j++) out[o + j] += p[w + j];
      }
    }
  }

  /** dw[i][:] += dout[r] for each active i of row r;  db += column sums of dout. */
  public static void sparseLinearBackward(float[] g, int wo, int bo, float[] dout, int[] idx, int[] count, int stride, int n, int outDim) {
    for (int r = 0; r < n; r++) {
      int o = r * outDim;
      for (int j = 0; j < outDim; j++) g[bo + j] += dout[o + j];
      for (int q = 0; q < count[r]; q++) {
        int w = wo + idx[r * stride + q] * outDim;
        for (int j = 0; j < outDim; j++) g[w + j] += dout[o + j];
      }
    }
  }

  // ---------------------------------------------------------------- elementwise activations

  /** out[i] = max(x[i], 0). */
  public static void reluForward(float[] out, float[] x, int n) {
    for (int i = 0; i < n; i++) out[i] = Math.max(x[i], 0f);
  }

  /** dx[i] += x[i] > 0 ? dout[i] : 0. */
  public static void reluBackward(float[] dx, float[] x, float[] dout, int n) {
    for (int i = 0; i < n; i++) if (x[i] > 0f) dx[i] += dout[i];
  }

  private static final float GELU_S = (float) Math.sqrt(2 / Math.PI);

  /** GELU, tanh approximation (as GPT-2 and llm.c): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
  public static void geluForward(float[] out, float[] x, int n) {
    for (int i = 0; i < n; i++) {
      float v = x[i];
      out[i] = 0.5f * v * (1f + (float) Math.tanh(GELU_S * (v + 0.044715f * v * v * v)));
    }
  }

  public static void geluBackward(float[] dx, float[] x, float[] dout, int n) {
    for (int i = 0; i < n; i++) {
      float v = x[i];
      float u = GELU_S * (v + 0.044715f * v * v * v);
      float th = (float) Math.tanh(u);
      float sech2 = 1f - th * th;
      float local = 0.5f * (1f + th) + 0.5f * v * sech2 * GELU_S * (1f + 3f * 0.044715f * v * v);
      dx[i] += local * dout[i];
    }
  }

  /** SiLU (swish): x * sigmoid(x). */
  public static void siluForward(float[] out, float[] x, int n) {
    for (int i = 0; i < n; i++) out[i] = x[i] * Kernels.sigmoid(x[i]);
  }

  public static void siluBackward(float[] dx, float[] x, float[] dout, int n) {
    for (int i = 0; i < n; i++) {
      float s = Kernels.sigmoid(x[i]);
      dx[i] += dout[i] * s * (1f + x[i] * (1f - s));
    }
  }

  // ---------------------------------------------------------------- layer norm

  /**
   * out[N][C] = (x - mean) * rstd * w + b per row, rstd = 1 / sqrt(var + 1e-5); keeps mean[N] and
   * rstd[N] for the backward pass. w, b: [C] at offsets wo, bo of {@code p}.
   */
  public static void layerNormForward(float[] out, float[] mean, float[] rstd, float[] x, float[] p, int wo, int bo, int n, int c) {
    for (int r = 0; r < n; r++) {
      int o = r * c;
      float m = 0f;
      for (int i = 0; i < c; i++) m += x[o + i];
      m /= c;
      float v = 0f;
      for (int i = 0; i < c; i++) {
        float d = x[o + i] - m;
        v += d * d;
      }
      v /= c;
      float s = 1f / (float) Math.sqrt(v + 1e-5f);
      for (int i = 0; i < c; i++) out[o + i] = (x[o + i] - m) * s * p[wo + i] + p[bo + i];
      mean[r] = m;
      rstd[r] = s;
    }
  }

  /** llm.c's layernorm_backward: dx += rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)). */
  public static void layerNormBackward(float[] dx, float[] g, int wo, int bo, float[] dout, float[] x, float[] p, float[] mean,
      float[] rstd, int n, int c) {
    for (int r = 0; r < n; r++) {
      int o = r * c;
      float m = mean[r], s = rstd[r];
      float dnormMean = 0f, dnormNormMean = 0f;
      for (int i = 0; i < c; i++) {
        float norm = (x[o + i] - m) * s;
        float dnorm = p[wo + i] * dout[o + i];
        dnormMean += dnorm;
        dnormNormMean += dnorm * norm;
      }
      dnormMean /= c;
      dnormNormMean /= c;
      for (int i = 0; i < c; i++) {
        float norm = (x[o + i] - m) * s;
        float dnorm = p[wo + i] * dout[o + i];
        g[bo + i] += dout[o + i];
        g[wo + i] += norm * dout[o + i];
        dx[o + i] += (dnorm - dnormMean - norm * dnormNormMean) * s;
      }
    }
  }

  // ---------------------------------------------------------------- pooling over grid cells

  /** out[N][C] = mean over p of x[N][C][P]. */
  public static void meanPoolForward(float[] out, float[] x, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) {
      float s = 0f;
      for (int q = 0; q < cells; q++) s += x[i * cells + q];
      out[i] = s / cells;
    }
  }

  public static void meanPoolBackward(float[] dx, float[] dout, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) {
      float d = dout[i] / cells;
      for (int q = 0; q < cells; q++) dx[i * cells + q] += d;
    }
  }

  /** out[N][C] = max over p of x[N][C][P]; argmax[N][C] keeps the winning cell (the first on ties). */
  public static void maxPoolForward(float[] out, int[] argmax, float[] x, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) {
      int best = 0;
      for (int q = 1; q < cells; q++) if (x[i * cells + q] > x[i * cells + best]) best = q;
      argmax[i] = best;
      out[i] = x[i * cells + best];
    }
  }

  public static void maxPoolBackward(float[] dx, int[] argmax, float[] dout, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) dx[i * cells + argmax[i]] += dout[i];
  }

  /** Broadcast back to the grid: out[N][C][P] = x[N][C] (pooled features appended to every cell). */
  public static void broadcastForward(float[] out, float[] x, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) java.util.Arrays.fill(out, i * cells, (i + 1) * cells, x[i]);
  }

  public static void broadcastBackward(float[] dx, float[] dout, int n, int c, int cells) {
    for (int i = 0; i < n * c; i++) {
      float s = 0f;
      for (int q = 0; q < cells; q++) s += dout[i * cells + q];
      dx[i] += s;
    }
  }

  // ---------------------------------------------------------------- 3x3 convolution

  /**
   * 3x3 convolution, stride 1, zero padding 1, on small grids: x[N][Ci][Hh][W] -> out[N][Co][Hh][W],
   * weight [Co][Ci][3][3] (PyTorch's Conv2d layout) at wo, bias [Co] at bo.
   */
  public static void conv3x3Forward(float[] out, float[] x, float[] p, int wo, int bo, int n, int ci, int co, int hh, int ww) {
    int cells = hh * ww;
    for (int s = 0; s < n; s++) {
      for (int o = 0; o < co; o++) {
        int ob = (s * co + o) * cells;
        java.util.Arrays.fill(out, ob, ob + cells, p[bo + o]);
        for (int i = 0; i < ci; i++) {
          int xb = (s * ci + i) * cells, kb = wo + (o * ci + i) * 9;
          for (int dy = 0; dy < 3; dy++) {
            for (int dx = 0; dx < 3; dx++) {
              float w = p[kb + dy * 3 + dx];
              int y0 = Math.max(0, 1 - dy), y1 = Math.min(hh, hh + 1 - dy);
              int x0 = Math.max(0, 1 - dx), x1 = Math.min(ww, ww + 1 - dx);
              for (int y = y0; y < y1; y++) {
                int src = xb + (y + dy - 1) * ww + (dx - 1), dst = ob + y * ww;
                for (int xx = x0; xx < x1; xx++) out[dst + xx] += w * x[src + xx];
              }
            }
          }
        }
      }
    }
  }

  public static void conv3x3Backward(float[] dx, float[] g, int wo, int bo, float[] dout, float[] x, float[] p, int n, int ci, int co,
      int hh, int ww) {
    int cells = hh * ww;
    for (int s = 0; s < n; s++) {
      for (int o = 0; o < co; o++) {
        int ob = (s * co + o) * cells;
        float db = 0f;
        for (int q = 0; q < cells; q++) db += dout[ob + q];
        g[bo + o] += db;
        for (int i = 0; i < ci; i++) {
          int xb = (s * ci + i) * cells, kb = (o * ci + i) * 9;
          for (int dy = 0; dy < 3; dy++) {
            for (int ddx = 0; ddx < 3; ddx++) {
              float w = p[wo + kb + dy * 3 + ddx], dw = 0f;
              int y0 = Math.max(0, 1 - dy), y1 = Math.min(hh, hh + 1 - dy);
              int x0 = Math.max(0, 1 - ddx), x1 = Math.min(ww, ww + 1 - ddx);
              for (int y = y0; y < y1; y++) {
                int src = xb + (y + dy - 1) * ww + (ddx - 1), dst = ob + y * ww;
                for (int xx = x0; xx < x1; xx++) {
                  dw += dout[dst + xx] * x[src + xx];
                  dx[src + xx] += w * dout[dst + xx];
                }
              }
              g[wo + kb + dy * 3 + ddx] += dw;
            }
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- GRU cell

  /**
   * The GRU's elementwise part, shared by {@link GruCell} and {@link ConvGruCell}: rows of W state
   * values (Hd, or Hd * P for the convolutional cell), pre-activations gi, gh [N][3W] in gate order
   * r, z, n; writes h' [N][W] and cache [N][4W] (r, z, m, gh_n).
   */
  static void gatesForward(float[] hOut, float[] cache, float[] gi, float[] gh, float[] h, int n, int width) {
    int W = width, G = 3 * W;
    for (int r = 0; r < n; r++) {
      int o = r * G, ho = r * W, co = r * 4 * W;
      for (int j = 0; j < W; j++) {
        float rr = Kernels.sigmoid(gi[o + j] + gh[o + j]);
        float z = Kernels.sigmoid(gi[o + W + j] + gh[o + W + j]);
        float ghn = gh[o + 2 * W + j];
        float m = (float) Math.tanh(gi[o + 2 * W + j] + rr * ghn);
        hOut[ho + j] = (1f - z) * m + z * h[ho + j];
        cache[co + j] = rr;
        cache[co + W + j] = z;
        cache[co + 2 * W + j] = m;
        cache[co + 3 * W + j] = ghn;
      }
    }
  }

  /** Given dh' [N][W]: writes dgi, dgh [N][3W] and adds the direct path into dh [N][W]. */
  static void gatesBackward(float[] dgi, float[] dgh, float[] dh, float[] dhOut, float[] cache, float[] h, int n, int width) {
    int W = width, G = 3 * W;
    for (int r = 0; r < n; r++) {
      int o = r * G, ho = r * W, co = r * 4 * W;
      for (int j = 0; j < W; j++) {
        float rr = cache[co + j], z = cache[co + W + j], m = cache[co + 2 * W + j], ghn = cache[co + 3 * W + j];
        float d = dhOut[ho + j];
        dh[ho + j] += d * z;
        float dz = d * (h[ho + j] - m) * z * (1f - z);
        float dm = d * (1f - z) * (1f - m * m);
        float dr = dm * ghn * rr * (1f - rr);
        dgi[o + j] = dr;
        dgi[o + W + j] = dz;
        dgi[o + 2 * W + j] = dm;
        dgh[o + j] = dr;
        dgh[o + W + j] = dz;
        dgh[o + 2 * W + j] = dm * rr;
      }
    }
  }

  /**
   * One step of a GRU cell exactly as PyTorch's {@code nn.GRUCell} (gates in order r, z, n):
   *
   * <pre>
   *   gi[N][3Hd] = x[N][I] . w_ih^T + b_ih          w_ih [3Hd][I], b_ih [3Hd]
   *   gh[N][3Hd] = h[N][Hd] . w_hh^T + b_hh         w_hh [3Hd][Hd], b_hh [3Hd]
   *   r = sigmoid(gi_r + gh_r);  z = sigmoid(gi_z + gh_z);  m = tanh(gi_n + r * gh_n)
   *   h' = (1 - z) * m + z * h
   * </pre>
   *
   * Tensors in {@code p}: "{prefix}.weight_ih", ".weight_hh", ".bias_ih", ".bias_hh" (PyTorch's names).
   * {@link #forward} keeps r, z, m and gh_n per row in {@code cache} [N][4Hd] for {@link #backward}.
   */
  public static final class GruCell {
    public final int in, hidden;
    public final Params.Tensor wIh, wHh, bIh, bHh;
    private float[] gi = new float[0], gh = new float[0];

    /** Declares the cell's tensors in {@code p} (before {@link Params#allocate()}). */
    public GruCell(Params p, String prefix, int in, int hidden) {
      this.in = in;
      this.hidden = hidden;
      wIh = p.add(prefix + ".weight_ih", 3 * hidden, in);
      wHh = p.add(prefix + ".weight_hh", 3 * hidden, hidden);
      bIh = p.add(prefix + ".bias_ih", 3 * hidden);
      bHh = p.add(prefix + ".bias_hh", 3 * hidden);
    }

    private void ensure(int n) {
      if (gi.length < n * 3 * hidden) {
        gi = new float[n * 3 * hidden];
        gh = new float[n * 3 * hidden];
      }
    }

    public void forward(float[] hOut, float[] cache, float[] x, float[] h, Params p, int n) {
      int H = hidden, G = 3 * H;
      ensure(n);
      float[] w = p.data;
      for (int r = 0; r < n; r++) {
        System.arraycopy(w, bIh.offset(), gi, r * G, G);
        System.arraycopy(w, bHh.offset(), gh, r * G, G);
      }
      Kernels.abt(x, 0, w, wIh.offset(), gi, 0, n, G, in, true);
      Kernels.abt(h, 0, w, wHh.offset(), gh, 0, n, G, H, true);
      gatesForward(hOut, cache, gi, gh, h, n, H);
    }

    /** Given dh' [N][Hd]: adds into dx [N][I], dh [N][Hd] and the parameter gradients p.grad. */
    public void backward(float[] dx, float[] dh, float[] dhOut, float[] cache, float[] x, float[] h, Params p, int n) {
      int H = hidden, G = 3 * H;
      ensure(n);
      float[] dgi = gi, dgh = gh; // reuse the forward scratch
      gatesBackward(dgi, dgh, dh, dhOut, cache, h, n, H);
      float[] g = p.grad, w = p.data;
      Kernels.atb(dgi, 0, x, 0, g, wIh.offset(), G, in, n, true);
      Kernels.atb(dgh, 0, h, 0, g, wHh.offset(), G, H, n, true);
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < G; j++) {
          g[bIh.offset() + j] += dgi[r * G + j];
          g[bHh.offset() + j] += dgh[r * G + j];
        }
      }
      Kernels.ab(dgi, 0, w, wIh.offset(), dx, 0, n, in, G, true);
      Kernels.ab(dgh, 0, w, wHh.offset(), dh, 0, n, H, G, true);
    }
  }

  // ---------------------------------------------------------------- convolutional GRU cell

  /**
   * One step of a convolutional GRU: {@link GruCell}'s equations with its two products replaced by
   * 3x3 convolutions (stride 1, zero padding 1) on an Hh x W grid, channels-first, so that the state
   * is a feature map and every cell's update sees its neighbours' (the spatial recurrence of the
   * DRC agents of Guez et al. 2019, with one GRU in place of their ConvLSTM stack):
   *
   * <pre>
   *   gi[N][3Hd][P] = conv3x3(x[N][I][P], w_ih [3Hd][I][3][3]) + b_ih
   *   gh[N][3Hd][P] = conv3x3(h[N][Hd][P], w_hh [3Hd][Hd][3][3]) + b_hh
   *   r = sigmoid(gi_r + gh_r);  z = sigmoid(gi_z + gh_z);  m = tanh(gi_n + r * gh_n)
   *   h' = (1 - z) * m + z * h
   * </pre>
   *
   * Tensors as {@link GruCell}'s, with the convolution weights 4-D. {@link #forward} keeps r, z, m
   * and gh_n in {@code cache} [N][4Hd][P] for {@link #backward}. A reference implementation (plain
   * loops over {@link #conv3x3Forward}), checked against finite differences; {@link ConvGruPolicy}
   * computes the same equations with kernels of its own (channels-last, vector accumulators).
   */
  public static final class ConvGruCell {
    public final int in, hidden, hh, ww;
    public final Params.Tensor wIh, wHh, bIh, bHh;
    private float[] gi = new float[0], gh = new float[0];

    /** Declares the cell's tensors in {@code p} (before {@link Params#allocate()}). */
    public ConvGruCell(Params p, String prefix, int in, int hidden, int hh, int ww) {
      this.in = in;
      this.hidden = hidden;
      this.hh = hh;
      this.ww = ww;
      wIh = p.add(prefix + ".weight_ih", 3 * hidden, in, 3, 3);
      wHh = p.add(prefix + ".weight_hh", 3 * hidden, hidden, 3, 3);
      bIh = p.add(prefix + ".bias_ih", 3 * hidden);
      bHh = p.add(prefix + ".bias_hh", 3 * hidden);
    }

    private void ensure(int n) {
      int need = n * 3 * hidden * hh * ww;
      if (gi.length < need) {
        gi = new float[need];
        gh = new float[need];
      }
    }

    public void forward(float[] hOut, float[] cache, float[] x, float[] h, Params p, int n) {
      ensure(n);
      conv3x3Forward(gi, x, p.data, wIh.offset(), bIh.offset(), n, in, 3 * hidden, hh, ww);
      conv3x3Forward(gh, h, p.data, wHh.offset(), bHh.offset(), n, hidden, 3 * hidden, hh, ww);
      gatesForward(hOut, cache, gi, gh, h, n, hidden * hh * ww);
    }

    /** Given dh' [N][Hd][P]: adds into dx [N][I][P], dh [N][Hd][P] and the parameter gradients p.grad. */
    public void backward(float[] dx, float[] dh, float[] dhOut, float[] cache, float[] x, float[] h, Params p, int n) {
      ensure(n);
      float[] dgi = gi, dgh = gh; // reuse the forward scratch
      gatesBackward(dgi, dgh, dh, dhOut, cache, h, n, hidden * hh * ww);
      conv3x3Backward(dx, p.grad, wIh.offset(), bIh.offset(), dgi, x, p.data, n, in, 3 * hidden, hh, ww);
      conv3x3Backward(dh, p.grad, wHh.offset(), bHh.offset(), dgh, h, p.data, n, hidden, 3 * hidden, hh, ww);
    }
  }
}
