package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class WorkersTest {
  @Test
  void everyItemRunsExactlyOnceInGrainAlignedChunks() {
    try (Workers w = new Workers(2)) {
      for (int n : new int[] {0, 1, 5, 6, 7, 13, 100, 1001}) {
        for (int round = 0; round < 50; round++) { // many wake-ups: spinning and parked helpers
          AtomicIntegerArray hits = new AtomicIntegerArray(Math.max(n, 1));
          w.run((worker, from, to) -> {
            assertThat(from % 6).isZero();
            for (int i = from; i < to; i++) hits.incrementAndGet(i);
          }, n, 6);
          for (int i = 0; i < n; i++) assertThat(hits.get(i)).as("n=%d item %d", n, i).isEqualTo(1);
        }
      }
    }
  }

  @Test
  void chunksDependOnlyOnSizeGrainAndThreads() {
    assertThat(Workers.start(0, 100, 6, 2)).isZero();
    assertThat(Workers.start(1, 100, 6, 2)).isEqualTo(48);
    assertThat(Workers.start(2, 100, 6, 2)).isEqualTo(100);
    // Two threads cut 100 items of grain 6 (17 units) into 8 chunks.
    try (Workers w = new Workers(2)) {
      for (int round = 0; round < 20; round++) {
        java.util.Set<String> chunks = java.util.concurrent.ConcurrentHashMap.newKeySet();
        w.run((worker, from, to) -> chunks.add(from + "-" + to), 100, 6);
        assertThat(chunks).containsExactlyInAnyOrder("0-12", "12-24", "24-36", "36-48", "48-60", "60-72", "72-84", "84-100");
      }
    }
  }

  @Test
  void aFailureInAHelperReachesTheCaller() {
    try (Workers w = new Workers(2)) {
      for (int round = 0; round < 20; round++) { // whichever thread claims the failing chunk
        assertThatThrownBy(() -> w.run((worker, from, to) -> {
          if (from <= 60 && 60 < to) throw new IllegalStateException("boom");
        }, 100, 1)).isInstanceOf(IllegalStateException.class).hasMessage("boom");
      }
      // The pool still works afterwards.
      java.util.concurrent.atomic.AtomicInteger sum = new java.util.concurrent.atomic.AtomicInteger();
      w.run((worker, from, to) -> sum.addAndGet(to - from), 10, 1);
      assertThat(sum.get()).isEqualTo(10);
    }
  }

  @Test
  void aChunkRunsOnOneThreadAtATimeAndWorkerNamesTheThread() {
    try (Workers w = new Workers(2)) {
      for (int round = 0; round < 50; round++) {
        Thread[] owner = new Thread[2];
        java.util.concurrent.atomic.AtomicIntegerArray busy = new java.util.concurrent.atomic.AtomicIntegerArray(2);
        w.run((worker, from, to) -> {
          assertThat(busy.incrementAndGet(worker)).as("worker %d runs two chunks at once", worker).isEqualTo(1);
          synchronized (owner) {
            if (owner[worker] == null) owner[worker] = Thread.currentThread();
            assertThat(owner[worker]).isSameAs(Thread.currentThread());
          }
          busy.decrementAndGet(worker);
        }, 64, 1);
        if (owner[0] != null) assertThat(owner[0]).isSameAs(Thread.currentThread());
      }
    }
  }

  @Test
  void oneThreadRunsInline() {
    try (Workers w = new Workers(1)) {
      Thread[] seen = new Thread[1];
      w.run((worker, from, to) -> seen[0] = Thread.currentThread(), 10, 1);
      assertThat(seen[0]).isSameAs(Thread.currentThread());
    }
  }
}
