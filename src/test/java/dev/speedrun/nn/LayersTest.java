package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.Rng;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every layer's backward pass against central finite differences of its float forward pass, with
 * the loss sum(c * out) accumulated in double. Inputs are kept in a well-conditioned regime (values
 * of order 1, kinks of ReLU and max pooling at least 0.05 away), eps = 1e-2, so truncation error
 * (~eps^2) and float rounding of the loss (~1e-7 / eps) both stay below 1e-3 of the gradient:
 * tolerance |analytic - numeric| <= 2e-3 * (1 + |numeric|).
 */
class LayersTest {
  static final double EPS = 1e-2, TOL = 2e-3;

  static double loss(float[] out, float[] c) {
    double s = 0;
    for (int i = 0; i < c.length; i++) s += (double) c[i] * out[i];
    return s;
  }

  /**
   * For each (input, its gradient) pair: perturbs every element and compares. {@code forward}
   * recomputes the output from the current inputs.
   */
  static void check(String what, Supplier<float[]> forward, float[] c, float[][] inputs, float[][] grads) {
    int checked = 0, nonzero = 0;
    for (int k = 0; k < inputs.length; k++) {
      float[] x = inputs[k];
      for (int i = 0; i < x.length; i++) {
        float keep = x[i];
        x[i] = (float) (keep + EPS);
        double fp = loss(forward.get(), c);
        x[i] = (float) (keep - EPS);
        double fm = loss(forward.get(), c);
        x[i] = keep;
        double num = (fp - fm) / (2 * EPS);
        assertThat(Math.abs(grads[k][i] - num)).as("%s input %d element %d: analytic %s numeric %s", what, k, i, grads[k][i], num)
            .isLessThanOrEqualTo(TOL * (1 + Math.abs(num)));
        checked++;
        if (Math.abs(num) > 1e-3) nonzero++;
      }
    }
    assertThat(nonzero).as(what).isGreaterThanOrEqualTo(Math.max(1, checked / 10)); // not vacuous
  }

  static float[] rand(Rng rng, int n, float scale) {
    return DefaultPolicyTest.randomFloats(rng, n, scale);
  }

  /** Values at least 0.05 from zero and from each other's ties: k * 0.05 + noise, shuffled. */
  static float[] separated(Rng rng, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) v[i] = (i - n / 2 + 0.5f) * 0.05f;
    for (int i = n - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      float t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    return v;
  }

  @Test
  void linearAndSparseLinear() {
    Rng rng = new Rng(6);
    int n = 5, in = 7, out = 3;
    Params p = new Params();
    Params.Tensor w = p.add("fc.weight", out, in), b = p.add("fc.bias", out);
    p.allocate();
    float[] init = rand(rng, p.size(), 0.5f);
    System.arraycopy(init, 0, p.data, 0, init.length);
    float[] x = rand(rng, n * in, 1f), c = rand(rng, n * out, 1f), y = new float[n * out], dx = new float[x.length];
    Layers.linearBackward(dx, p.grad, w.offset(), b.offset(), c, x, p.data, n, in, out);
    check("linear", () -> { Layers.linearForward(y, x, p.data, w.offset(), b.offset(), n, in, out); return y; }, c,
        new float[][] {x, p.data}, new float[][] {dx, p.grad});

    // Sparse: the same layer as a dense product with the 0/1 vector, checked both ways.
    int cells = 12;
    Params q = new Params();
    Params.Tensor e = q.add("embed.weight", cells, out), eb = q.add("embed.bias", out);
    q.allocate();
    float[] init2 = rand(rng, q.size(), 0.5f);
    System.arraycopy(init2, 0, q.data, 0, init2.length);
    int[] idx = new int[n * cells], count = new int[n];
    float[] dense = new float[n * cells];
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < cells; i++) {
        if (rng.nextInt(3) == 0) {
          idx[r * cells + count[r]++] = i;
          dense[r * cells + i] = 1f;
        }
      }
    }
    float[] ys = new float[n * out];
    Layers.sparseLinearForward(ys, idx, count, cells, q.data, e.offset(), eb.offset(), n, out);
    for (int r = 0; r < n; r++) {
      for (int o = 0; o < out; o++) {
        float want = q.data[eb.offset() + o];
        for (int i = 0; i < cells; i++) want += dense[r * cells + i] * q.data[e.offset() + i * out + o];
        assertThat(ys[r * out + o]).isCloseTo(want, org.assertj.core.data.Offset.offset(1e-5f));
      }
    }
    Layers.sparseLinearBackward(q.grad, e.offset(), eb.offset(), c, idx, count, cells, n, out);
    check("sparse linear", () -> { Layers.sparseLinearForward(ys, idx, count, cells, q.data, e.offset(), eb.offset(), n, out); return ys; },
        c, new float[][] {q.data}, new float[][] {q.grad});
  }

  @Test
  void activations() {
    Rng rng = new Rng(1);
    int n = 60;
    float[] c = rand(rng, n, 1f);
    float[] x = separated(rng, n);
    float[] out = new float[n];
    float[] dx = new float[n];
    Layers.reluBackward(dx, x, c, n);
    check("relu", () -> { Layers.reluForward(out, x, n); return out; }, c, new float[][] {x}, new float[][] {dx});

    float[] y = rand(rng, n, 3f), dy = new float[n];
    Layers.geluBackward(dy, y, c, n);
    check("gelu", () -> { Layers.geluForward(out, y, n); return out; }, c, new float[][] {y}, new float[][] {dy});

    float[] z = rand(rng, n, 3f), dz = new float[n];
    Layers.siluBackward(dz, z, c, n);
    check("silu", () -> { Layers.siluForward(out, z, n); return out; }, c, new float[][] {z}, new float[][] {dz});
  }

  @Test
  void geluAndSiluValues() {
    float[] x = {0f, 1f, -1f}, out = new float[3];
    Layers.geluForward(out, x, 3);
    assertThat(out[1]).isCloseTo(0.841192f, org.assertj.core.data.Offset.offset(1e-5f)); // tanh approximation at 1
    Layers.siluForward(out, x, 3);
    assertThat(out[2]).isCloseTo((float) (-1 / (1 + Math.E)), org.assertj.core.data.Offset.offset(1e-6f));
  }

  @Test
  void layerNorm() {
    Rng rng = new Rng(2);
    int n = 4, ch = 12;
    Params p = new Params();
    Params.Tensor w = p.add("ln.weight", ch), b = p.add("ln.bias", ch);
    p.allocate();
    float[] init = rand(rng, 2 * ch, 1f);
    System.arraycopy(init, 0, p.data, 0, init.length);
    float[] x = rand(rng, n * ch, 2f), c = rand(rng, n * ch, 1f), out = new float[n * ch], mean = new float[n], rstd = new float[n];
    float[] dx = new float[n * ch];
    Layers.layerNormForward(out, mean, rstd, x, p.data, w.offset(), b.offset(), n, ch);
    Layers.layerNormBackward(dx, p.grad, w.offset(), b.offset(), c, x, p.data, mean, rstd, n, ch);
    check("layernorm", () -> { Layers.layerNormForward(out, mean, rstd, x, p.data, w.offset(), b.offset(), n, ch); return out; },
        c, new float[][] {x, p.data}, new float[][] {dx, p.grad});
  }

  @Test
  void pooling() {
    Rng rng = new Rng(3);
    int n = 2, ch = 3, cells = 10;
    float[] x = separated(rng, n * ch * cells), c = rand(rng, n * ch, 1f), out = new float[n * ch];
    float[] dx = new float[x.length];
    Layers.meanPoolBackward(dx, c, n, ch, cells);
    check("mean pool", () -> { Layers.meanPoolForward(out, x, n, ch, cells); return out; }, c, new float[][] {x}, new float[][] {dx});

    int[] arg = new int[n * ch];
    float[] dm = new float[x.length];
    Layers.maxPoolForward(out, arg, x, n, ch, cells);
    Layers.maxPoolBackward(dm, arg, c, n, ch, cells);
    check("max pool", () -> { Layers.maxPoolForward(out, arg, x, n, ch, cells); return out; }, c, new float[][] {x}, new float[][] {dm});

    float[] v = rand(rng, n * ch, 1f), cb = rand(rng, n * ch * cells, 1f), big = new float[n * ch * cells], dv = new float[n * ch];
    Layers.broadcastBackward(dv, cb, n, ch, cells);
    check("broadcast", () -> { Layers.broadcastForward(big, v, n, ch, cells); return big; }, cb, new float[][] {v}, new float[][] {dv});
  }

  @Test
  void conv3x3() {
    Rng rng = new Rng(4);
    int n = 2, ci = 3, co = 2, hh = 4, ww = 5, cells = hh * ww;
    Params p = new Params();
    Params.Tensor w = p.add("conv.weight", co, ci, 3, 3), b = p.add("conv.bias", co);
    p.allocate();
    float[] init = rand(rng, p.size(), 0.5f);
    System.arraycopy(init, 0, p.data, 0, init.length);
    float[] x = rand(rng, n * ci * cells, 1f), c = rand(rng, n * co * cells, 1f), out = new float[n * co * cells];
    float[] dx = new float[x.length];
    Layers.conv3x3Backward(dx, p.grad, w.offset(), b.offset(), c, x, p.data, n, ci, co, hh, ww);
    check("conv3x3", () -> { Layers.conv3x3Forward(out, x, p.data, w.offset(), b.offset(), n, ci, co, hh, ww); return out; },
        c, new float[][] {x, p.data}, new float[][] {dx, p.grad});
  }

  @Test
  void conv3x3MatchesAHandComputedCase() {
    // One channel, 3x3 grid of ones, kernel of ones: each output counts its in-grid neighbours.
    Params p = new Params();
    p.add("w", 1, 1, 3, 3);
    p.add("b", 1);
    p.allocate();
    java.util.Arrays.fill(p.data, 0, 9, 1f);
    p.data[9] = 0.5f;
    float[] x = new float[9], out = new float[9];
    java.util.Arrays.fill(x, 1f);
    Layers.conv3x3Forward(out, x, p.data, 0, 9, 1, 1, 1, 3, 3);
    assertThat(out).containsExactly(4.5f, 6.5f, 4.5f, 6.5f, 9.5f, 6.5f, 4.5f, 6.5f, 4.5f);
  }

  @Test
  void gruCell() {
    Rng rng = new Rng(5);
    int n = 3, in = 4, hd = 5;
    Params p = new Params();
    var cell = new Layers.GruCell(p, "gru", in, hd);
    p.allocate();
    float[] init = rand(rng, p.size(), 0.7f);
    System.arraycopy(init, 0, p.data, 0, init.length);
    float[] x = rand(rng, n * in, 1f), h = rand(rng, n * hd, 1f), c = rand(rng, n * hd, 1f);
    float[] out = new float[n * hd], cache = new float[n * 4 * hd], dx = new float[x.length], dh = new float[h.length];
    cell.forward(out, cache, x, h, p, n);
    cell.backward(dx, dh, c, cache, x, h, p, n);
    check("gru", () -> { cell.forward(out, cache, x, h, p, n); return out; }, c, new float[][] {x, h, p.data},
        new float[][] {dx, dh, p.grad});
  }

  @Test
  void convGruCell() {
    Rng rng = new Rng(6);
    int n = 2, in = 2, hd = 3, hh = 3, ww = 4, cells = hh * ww;
    Params p = new Params();
    var cell = new Layers.ConvGruCell(p, "cgru", in, hd, hh, ww);
    p.allocate();
    float[] init = rand(rng, p.size(), 0.4f);
    System.arraycopy(init, 0, p.data, 0, init.length);
    float[] x = rand(rng, n * in * cells, 1f), h = rand(rng, n * hd * cells, 1f), c = rand(rng, n * hd * cells, 1f);
    float[] out = new float[n * hd * cells], cache = new float[n * 4 * hd * cells];
    float[] dx = new float[x.length], dh = new float[h.length];
    cell.forward(out, cache, x, h, p, n);
    cell.backward(dx, dh, c, cache, x, h, p, n);
    check("convgru", () -> { cell.forward(out, cache, x, h, p, n); return out; }, c, new float[][] {x, h, p.data},
        new float[][] {dx, dh, p.grad});
  }

  /** On a 1x1 grid a 3x3 convolution sees only its centre tap: the cell is a GRU cell with those weights. */
  @Test
  void convGruCellOnOneCellIsAGruCell() {
    Rng rng = new Rng(7);
    int n = 3, in = 4, hd = 5;
    Params pc = new Params(), pg = new Params();
    var conv = new Layers.ConvGruCell(pc, "c", in, hd, 1, 1);
    var gru = new Layers.GruCell(pg, "g", in, hd);
    pc.allocate();
    pg.allocate();
    float[] init = rand(rng, pc.size(), 0.7f);
    System.arraycopy(init, 0, pc.data, 0, init.length);
    for (int o = 0; o < 3 * hd; o++) {
      for (int i = 0; i < in; i++) pg.data[gru.wIh.offset() + o * in + i] = pc.data[conv.wIh.offset() + (o * in + i) * 9 + 4];
      for (int i = 0; i < hd; i++) pg.data[gru.wHh.offset() + o * hd + i] = pc.data[conv.wHh.offset() + (o * hd + i) * 9 + 4];
      pg.data[gru.bIh.offset() + o] = pc.data[conv.bIh.offset() + o];
      pg.data[gru.bHh.offset() + o] = pc.data[conv.bHh.offset() + o];
    }
    float[] x = rand(rng, n * in, 1f), h = rand(rng, n * hd, 1f);
    float[] a = new float[n * hd], b = new float[n * hd];
    conv.forward(a, new float[n * 4 * hd], x, h, pc, n);
    gru.forward(b, new float[n * 4 * hd], x, h, pg, n);
    for (int i = 0; i < a.length; i++) assertThat(a[i]).isCloseTo(b[i], org.assertj.core.data.Offset.offset(1e-5f));
  }
}
