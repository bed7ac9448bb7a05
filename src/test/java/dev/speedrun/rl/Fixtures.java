package dev.speedrun.rl;

import dev.speedrun.env.Rng;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Test fixtures: easy generated levels and a small policy/optimizer factory. */
final class Fixtures {
  private Fixtures() {}

  /**
   * One-box levels in open rooms of 3x3 to 5x5 floor cells (walls around): the box stands 1 to 3
   * cells from its goal on a straight line, with a free cell behind it, so one straight push run
   * after walking round solves it.
   */
  static List<Level> easyLevels(int count, long seed) {
    Rng rng = new Rng(seed);
    List<Level> out = new ArrayList<>();
    while (out.size() < count) {
      int w = 3 + rng.nextInt(3), h = 3 + rng.nextInt(3); // floor size
      int W = w + 2, H = h + 2;
      byte[] cells = new byte[W * H];
      for (int r = 0; r < H; r++) for (int c = 0; c < W; c++) {
        if (r == 0 || c == 0 || r == H - 1 || c == W - 1) cells[r * W + c] = Level.WALL;
      }
      boolean horizontal = rng.nextInt(2) == 0;
      int len = horizontal ? w : h;
      int goal = rng.nextInt(len), box = rng.nextInt(len);
      int dir = Integer.signum(goal - box); // push direction along the line
      int behind = box - dir;
      if (goal == box || behind < 0 || behind >= len) continue;
      int other = rng.nextInt(horizontal ? h : w);
      int gCell = horizontal ? (other + 1) * W + goal + 1 : (goal + 1) * W + other + 1;
      int bCell = horizontal ? (other + 1) * W + box + 1 : (box + 1) * W + other + 1;
      cells[gCell] |= Level.GOAL;
      cells[bCell] |= Level.BOX;
      int p;
      do {
        p = (1 + rng.nextInt(h)) * W + 1 + rng.nextInt(w);
      } while (p == gCell || p == bCell);
      cells[p] |= Level.PLAYER;
      out.add(new Level(W, H, cells));
    }
    return out;
  }

  /** A small default policy, and (until nn's optimizers are merged) a plain Adam with clipping. */
  static TrainingRun.Factory small() {
    return new TrainingRun.Factory() {
      @Override public PolicyNet policy(Recipe r, long seed) { return Engine.policy(r, seed); }

      @Override public Optimizer optimizer(Recipe r, PolicyNet net) { return new TestAdam(net, r); }
    };
  }

  /** Adam with global norm clipping: a stand-in used only by tests. */
  static final class TestAdam implements Optimizer {
    private final PolicyNet net;
    private final Recipe r;
    private final float[] m1, m2;
    private long t;

    TestAdam(PolicyNet net, Recipe r) {
      this.net = net;
      this.r = r;
      m1 = new float[net.params().size()];
      m2 = new float[net.params().size()];
    }

    @Override
    public float step(float lr) {
      float[] g = net.params().grad, p = net.params().data;
      double sq = 0;
      for (float v : g) sq += (double) v * v;
      float norm = (float) Math.sqrt(sq);
      float scale = r.maxGradNorm() > 0 && norm > r.maxGradNorm() ? r.maxGradNorm() / norm : 1f;
      t++;
      double c1 = 1 - Math.pow(r.beta1(), t), c2 = 1 - Math.pow(r.beta2(), t);
      for (int k = 0; k < p.length; k++) {
        float gk = g[k] * scale;
        m1[k] = r.beta1() * m1[k] + (1 - r.beta1()) * gk;
        m2[k] = r.beta2() * m2[k] + (1 - r.beta2()) * gk * gk;
        p[k] -= (float) (lr * (m1[k] / c1) / (Math.sqrt(m2[k] / c2) + r.adamEps()));
      }
      return norm;
    }

    @Override
    public void save(DataOutputStream out) throws IOException {
      out.writeLong(t);
      for (float v : m1) out.writeFloat(v);
      for (float v : m2) out.writeFloat(v);
    }

    @Override
    public void load(DataInputStream in) throws IOException {
      t = in.readLong();
      for (int k = 0; k < m1.length; k++) m1[k] = in.readFloat();
      for (int k = 0; k < m2.length; k++) m2[k] = in.readFloat();
    }
  }
}
