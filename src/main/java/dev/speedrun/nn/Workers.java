package dev.speedrun.nn;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A persistent pool for fine-grained parallel loops: {@code threads - 1} daemon threads that spin
 * for a while after each job (a wake-up from park costs tens of microseconds here), then park. The
 * caller's thread works too, so {@code new Workers(1)} runs everything inline.
 *
 * <p>{@link #run} splits items [0, n) into up to {@link #CHUNKS_PER_THREAD} contiguous chunks per
 * thread, boundaries at multiples of {@code grain}; the split depends only on (n, grain, threads).
 * Threads claim chunks in order from a shared counter, so a helper that the operating system has
 * not scheduled yet (this machine is shared: with a fixed chunk per thread the caller spent most of
 * a 2-thread training step waiting for it) simply gets fewer chunks. Which thread runs a chunk
 * varies from run to run, so a task may use {@code worker} only to pick per-thread scratch
 * (each thread runs its chunks one at a time), never to place results: a job whose chunks do not
 * interact gives the same bits at every thread count. Jobs must not call {@link #run} again. Not
 * for use by several caller threads at once.
 */
public final class Workers implements AutoCloseable {
  /** Items [from, to) of a job, run by thread {@code worker} (0 is the caller). */
  public interface Task {
    void run(int worker, int from, int to);
  }

  /** Chunks per thread: enough that a late helper costs the caller little waiting. */
  static final int CHUNKS_PER_THREAD = 4;

  private static final long SPIN_NANOS = 200_000;

  /** One call of {@link #run}: immutable but for the counters, so a helper that wakes late cannot mix two jobs. */
  private static final class Job {
    final Task task;
    final int n, grain, chunks;
    final AtomicInteger next = new AtomicInteger(), done = new AtomicInteger();
    volatile Throwable failure;

    Job(Task task, int n, int grain, int chunks) {
      this.task = task;
      this.n = n;
      this.grain = grain;
      this.chunks = chunks;
    }

    /** Claims and runs chunks until none is left. */
    void work(int worker) {
      int c;
      while ((c = next.getAndIncrement()) < chunks) {
        try {
          int s = start(c, n, grain, chunks), e = start(c + 1, n, grain, chunks);
          if (s < e) task.run(worker, s, e);
        } catch (Throwable t) {
          failure = t;
        }
        done.incrementAndGet();
      }
    }
  }

  private final int threads;
  private final Thread[] helpers;
  private final AtomicIntegerArray parked; // 1 while a helper is (about to be) parked
  private volatile long generation;
  private volatile boolean closed;
  private volatile Job job;

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
    int units = (n + grain - 1) / grain;
    Job j = new Job(task, n, grain, Math.min(units, CHUNKS_PER_THREAD * threads));
    job = j;
    generation++; // publishes the job
    for (int w = 1; w < threads; w++) {
      if (parked.get(w) != 0) LockSupport.unpark(helpers[w - 1]);
    }
    j.work(0);
    int spins = 0;
    while (j.done.get() != j.chunks) { // only chunks a helper has claimed and not finished
      if (++spins < 1_000_000) Thread.onSpinWait();
      else Thread.yield();
    }
    job = null;
    Throwable f = j.failure;
    if (f != null) rethrow(f);
  }

  /** Start of chunk w of [0, n) cut into {@code parts} chunks (chunk w is [start(w), start(w + 1))), at a multiple of grain. */
  static int start(int w, int n, int grain, int parts) {
    int units = (n + grain - 1) / grain;
    return Math.min(n, (int) ((long) units * w / parts) * grain);
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
      Job j = job; // the job of generation g or a later one, or null when it is already done
      if (j != null) j.work(id);
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
