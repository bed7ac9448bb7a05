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
  }

  @Test
  void aFailureInAHelperReachesTheCaller() {
    try (Workers w = new Workers(2)) {
      assertThatThrownBy(() -> w.run((worker, from, to) -> {
        if (worker == 1) throw new IllegalStateException("boom");
      }, 100, 1)).isInstanceOf(IllegalStateException.class).hasMessage("boom");
      // The pool still works afterwards.
      int[] sum = new int[2];
      w.run((worker, from, to) -> sum[worker] = to - from, 10, 1);
      assertThat(sum[0] + sum[1]).isEqualTo(10);
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
