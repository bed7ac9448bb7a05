package dev.speedrun.nn;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A persistent pool for fine-grained parallel loops: {@code threads - 1} daemon threads that spin
 * for a while after each job (a wake-up from park costs tens of microseconds here), then park. The
 * caller's thread runs chunk 0, so {@code new Workers(1)} runs everything inline.
 *
 * <p>{@link #run} splits items [0, n) into one contiguous chunk per thread, boundaries rounded to a
 * multiple of {@code grain}; the split depends only on (n, grain, threads), so a job whose items do
 * not interact gives the same bits at every thread count. Jobs must not call {@link #run} again.
 * Not for use by several caller threads at once.
 */
public final class Workers implements AutoCloseable {
  /** Items [from, to) of a job, run by thread {@code worker} (0 is the caller). */
  public interface Task {
    void run(int worker, int from, int to);
  }

  private static final long SPIN_NANOS = 200_000;

  private final int threads;
  private final Thread[] helpers;
  private final AtomicIntegerArray parked; // 1 while a helper is (about to be) parked
  private volatile long generation;
  private volatile boolean closed;
  private volatile Task task;
  private volatile int items, grain;
  private final AtomicInteger pending = new AtomicInteger();
  private volatile Throwable failure;

  public Workers(int threads) {
    if (threads < 1) throw new IllegalArgumentException("threads must be >= 1");
    this.threads = threads;
    helpers = new Thread[threads - 1];
    parked = new AtomicIntegerArray(threads);
    for (int w = 1; w < threads; w++) {
      final int id = w;
      Thread t = new Thread(() -> loop(id), "nn-worker-" + w);
      t.setDaemon(true);
      helpers[w - 1] = t;
      t.start();
    }
  }

  public int threads() { return threads; }

  /** Runs {@code task} over [0, n) split into contiguous chunks (multiples of {@code grain}); returns when all are done. */
  public void run(Task task, int n, int grain) {
    if (threads == 1 || n <= grain) {
      task.run(0, 0, n);
      return;
    }
    this.task = task;
    this.items = n;
    this.grain = grain;
    pending.set(threads - 1);
    generation++; // publishes task, items, grain
    for (int w = 1; w < threads; w++) {
      if (parked.get(w) != 0) LockSupport.unpark(helpers[w - 1]);
    }
    Throwable mine = null;
    try {
      int s = start(0, n, grain, threads), e = start(1, n, grain, threads);
      if (s < e) task.run(0, s, e);
    } catch (Throwable t) {
      mine = t;
    }
    int spins = 0;
    while (pending.get() != 0) {
      if (++spins < 1_000_000) Thread.onSpinWait();
      else Thread.yield();
    }
    this.task = null;
    if (mine != null) rethrow(mine);
    Throwable f = failure;
    if (f != null) {
      failure = null;
      rethrow(f);
    }
  }

  /** Start of chunk w of [0, n) (chunk w is [start(w), start(w + 1))), at a multiple of grain. */
  static int start(int w, int n, int grain, int threads) {
    int units = (n + grain - 1) / grain;
    return Math.min(n, (int) ((long) units * w / threads) * grain);
  }

  private void loop(int id) {
    long seen = 0;
    while (true) {
      long g;
      long spinStart = System.nanoTime();
      int spins = 0;
      while ((g = generation) == seen) {
        if (closed) return;
        if ((++spins & 255) != 0 || System.nanoTime() - spinStart < SPIN_NANOS) {
          Thread.onSpinWait();
        } else {
          parked.set(id, 1);
          if (generation == seen && !closed) LockSupport.park(this);
          parked.set(id, 0);
          spinStart = System.nanoTime();
        }
      }
      seen = g;
      try {
        int n = items, gr = grain;
        int s = start(id, n, gr, threads), e = start(id + 1, n, gr, threads);
        if (s < e) task.run(id, s, e);
      } catch (Throwable t) {
        failure = t;
      }
      pending.decrementAndGet();
    }
  }

  private static void rethrow(Throwable t) {
    if (t instanceof RuntimeException e) throw e;
    if (t instanceof Error e) throw e;
    throw new RuntimeException(t);
  }

  @Override
  public void close() {
    closed = true;
    for (Thread t : helpers) LockSupport.unpark(t);
  }
}
