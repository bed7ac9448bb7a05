package dev.speedrun.eval;

import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.env.Rng;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Plays a {@link PolicyNet} on every level of a list, each level exactly once per sample, for up
 * to 120 steps (the environment's timeout), and records per level how many samples solved it and
 * in how many steps.
 *
 * <p>Work: the levels are cut into {@code threads} contiguous chunks, one per thread, each with its
 * own network (from {@code nets}) and its own {@link BoxobanEnv} of {@code batch} slots. A slot plays
 * one (level, sample) item; when its episode ends (solve or step 120) its result is recorded, its
 * recurrent state row is zeroed and the chunk's next item is loaded into it. The environment's
 * auto-reset is overridden by that explicit load, so no level is ever played twice or skipped.
 * Slots left without work idle on noops and are ignored. Results therefore depend only on the
 * levels, the network, the options and the thread/batch layout, never on thread timing.
 *
 * <p>Actions: greedy = argmax of the logits, the lowest action index on ties. Sampled = softmax of
 * logits / temperature, drawn with a SplitMix64 stream seeded {@code Rng.mix(seed, level, sample)}
 * ({@code level} = the index in the list), one {@code nextDouble()} per step.
 */
public final class Evaluator {
  private Evaluator() {}

  /**
   * @param samples samples per level (1 for greedy scoring)
   * @param temperature 0 for greedy (argmax), else the softmax temperature of sampling
   * @param seed seed of the sampling streams (unused when greedy)
   * @param threads threads, each with its own network
   * @param batch environments stepped together per thread
   */
  public record Options(int samples, double temperature, long seed, int threads, int batch) {
    public Options {
      if (samples < 1) throw new IllegalArgumentException("samples must be >= 1, got " + samples);
      if (!(temperature >= 0)) throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
      if (temperature == 0 && samples != 1) throw new IllegalArgumentException("greedy play is deterministic: use 1 sample, or a temperature > 0");
      if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
      if (batch < 1) throw new IllegalArgumentException("batch must be >= 1, got " + batch);
    }

    /** The benchmark's scoring: greedy, one play per level, on both cores. */
    public static Options greedy(int threads) {
      return new Options(1, 0, 0, threads, 128);
    }

    public static Options sampled(int samples, double temperature, long seed, int threads) {
      return new Options(samples, temperature, seed, threads, 128);
    }

    public boolean isGreedy() { return temperature == 0; }
  }

  /** Per level: samples solved, and each sample's episode length (steps applied until done). */
  public record Outcome(int samples, int[] solved, int[][] steps) {
    public int levels() { return solved.length; }
  }

  public static Outcome play(List<Level> levels, Supplier<PolicyNet> nets, Options o) {
    int n = levels.size();
    if (n == 0) throw new IllegalArgumentException("no levels to play");
    int[] solved = new int[n];
    int[][] steps = new int[n][o.samples()];
    for (int[] row : steps) java.util.Arrays.fill(row, -1);
    int threads = Math.min(o.threads(), n);
    List<Thread> workers = new ArrayList<>();
    Throwable[] failure = new Throwable[threads];
    for (int t = 0; t < threads; t++) {
      int from = (int) ((long) n * t / threads), to = (int) ((long) n * (t + 1) / threads);
      int ti = t;
      Runnable job = () -> {
        try {
          playChunk(levels, from, to, nets.get(), o, solved, steps);
        } catch (Throwable e) {
          failure[ti] = e;
        }
      };
      if (t == threads - 1) {
        job.run();
      } else {
        Thread th = new Thread(job, "eval-" + t);
        th.start();
        workers.add(th);
      }
    }
    for (Thread th : workers) {
      try {
        th.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while evaluating", e);
      }
    }
    for (Throwable f : failure) {
      if (f instanceof RuntimeException re) throw re;
      if (f instanceof Error er) throw er;
      if (f != null) throw new IllegalStateException(f);
    }
    for (int i = 0; i < n; i++) {
      for (int s = 0; s < o.samples(); s++) {
        if (steps[i][s] < 0) throw new IllegalStateException("level " + i + " sample " + s + " was not played");
      }
    }
    return new Outcome(o.samples(), solved, steps);
  }

  /** Plays items (level, sample) for levels [from, to) on one thread. */
  private static void playChunk(List<Level> levels, int from, int to, PolicyNet net, Options o,
      int[] solved, int[][] steps) {
    int k = o.samples();
    long items = (long) (to - from) * k;
    int slots = (int) Math.min(o.batch(), items);
    int a = net.numActions();
    if (a != BoxobanEnv.NUM_ACTIONS) throw new IllegalArgumentException("policy has " + a + " actions, the environment 5");
    int s = net.stateSize();
    Level[] slotLevel = new Level[slots];
    int[] slotItemLevel = new int[slots], slotItemSample = new int[slots];
    BoxobanEnv env = new BoxobanEnv(slots, (e, ep) -> slotLevel[e]);
    float[] state = new float[slots * s], logits = new float[slots * a], values = new float[slots];
    int[] actions = new int[slots];
    Rng[] rng = new Rng[slots];
    for (int i = 0; i < slots; i++) rng[i] = new Rng(0);
    long next = 0;
    int active = 0;
    for (int i = 0; i < slots; i++) {
      assign(i, next++, from, k, levels, slotLevel, slotItemLevel, slotItemSample, rng, o.seed(), env);
      active++;
    }
    while (active > 0) {
      net.step(env.obs, slots, state, logits, values);
      for (int i = 0; i < slots; i++) {
        if (slotItemLevel[i] < 0) actions[i] = 0;
        else actions[i] = o.isGreedy() ? argmax(logits, i * a, a) : sample(logits, i * a, a, o.temperature(), rng[i]);
      }
      env.step(actions);
      for (int i = 0; i < slots; i++) {
        if (slotItemLevel[i] < 0 || !env.dones[i]) continue;
        int lv = slotItemLevel[i];
        if (env.lastSolved[i]) solved[lv]++;
        steps[lv][slotItemSample[i]] = env.lastLength[i];
        java.util.Arrays.fill(state, i * s, i * s + s, 0f);
        if (next < items) {
          assign(i, next++, from, k, levels, slotLevel, slotItemLevel, slotItemSample, rng, o.seed(), env);
        } else {
          slotItemLevel[i] = -1;
          active--;
        }
      }
    }
  }

  private static void assign(int slot, long item, int from, int k, List<Level> levels, Level[] slotLevel,
      int[] slotItemLevel, int[] slotItemSample, Rng[] rng, long seed, BoxobanEnv env) {
    int lv = from + (int) (item / k), sm = (int) (item % k);
    slotItemLevel[slot] = lv;
    slotItemSample[slot] = sm;
    slotLevel[slot] = levels.get(lv);
    rng[slot].setState(Rng.mix(seed, lv, sm));
    env.load(slot, slotLevel[slot]);
  }

  /** Index of the largest logit, the lowest index on ties; NaN logits are an engine fault. */
  static int argmax(float[] logits, int off, int a) {
    int best = 0;
    float bv = logits[off];
    if (Float.isNaN(bv)) throw new IllegalStateException("policy produced a NaN logit");
    for (int j = 1; j < a; j++) {
      float v = logits[off + j];
      if (Float.isNaN(v)) throw new IllegalStateException("policy produced a NaN logit");
      if (v > bv) {
        bv = v;
        best = j;
      }
    }
    return best;
  }

  /** Draws from softmax(logits / temperature) with one uniform from {@code rng}. */
  static int sample(float[] logits, int off, int a, double temperature, Rng rng) {
    double max = logits[off + argmax(logits, off, a)];
    double total = 0;
    for (int j = 0; j < a; j++) total += Math.exp((logits[off + j] - max) / temperature);
    double u = rng.nextDouble() * total;
    double acc = 0;
    int last = 0;
    for (int j = 0; j < a; j++) {
      double w = Math.exp((logits[off + j] - max) / temperature);
      if (w > 0) last = j;
      acc += w;
      if (u < acc) return j;
    }
    return last; // u rounded onto the total: the last action with weight
  }
}
