package dev.speedrun.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrioritizedLevelReplayTest {
  /** {@code count} distinct 5x3 levels: walls around a row of 3 cells, player, box and goal placed by k. */
  static LevelStore store(int count) {
    List<Level> out = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      // 10 rows of 10: walls, one floor row; the box on cell 1+(k%7) .. distinct by (k) via the player's row offset.
      byte[] cells = new byte[100];
      java.util.Arrays.fill(cells, Level.WALL);
      for (int c = 1; c < 9; c++) for (int r = 1; r < 9; r++) cells[r * 10 + c] = 0;
      int r = 1 + k % 8, c = 1 + (k / 8) % 6;
      cells[r * 10 + c] |= Level.PLAYER;
      cells[(1 + (k / 48) % 8) * 10 + 8] |= Level.GOAL;
      cells[(1 + (k / 48) % 8) * 10 + 7] |= Level.BOX;
      out.add(new Level(10, 10, cells));
    }
    return LevelStore.of("test", "test.txt", out);
  }

  static PrioritizedLevelReplay sampler(int size, PrioritizedLevelReplay.Settings s) {
    return new PrioritizedLevelReplay(store(size), 2, s, 11, 12);
  }

  /**
   * Three levels inserted at resets 1, 2 and 3 with scores 0.2, 0.9, 0.5; beta = 1, rho = 0.5.
   * Ranks: level 7 first (h = 1), level 2 second (1/2), level 5 third (1/3): P_S = 6/11, 3/11, 2/11.
   * Staleness at clock 3: 2, 1, 0, so P_C = 2/3, 1/3, 0. P = (P_S + P_C) / 2.
   */
  @Test
  void mixtureOfRankAndStalenessMatchesHandComputedProbabilities() {
    PrioritizedLevelReplay p = sampler(20, new PrioritizedLevelReplay.Settings(1f, 1f, 0.5f, 3, 3));
    p.storeIndex(0, 0);
    p.update(5, 0.2f, false, false);
    p.storeIndex(0, 1);
    p.update(7, 0.9f, false, false);
    p.storeIndex(0, 2);
    p.update(2, 0.5f, false, false);
    assertThat(p.clock()).isEqualTo(3);
    double[] pr = p.probabilities();
    assertThat(p.bufferLevel(0)).isEqualTo(5);
    assertThat(pr[0]).isCloseTo(14.0 / 33, within(1e-12)); // 1/11 + 1/3
    assertThat(pr[1]).isCloseTo(29.0 / 66, within(1e-12)); // 3/11 + 1/6
    assertThat(pr[2]).isCloseTo(3.0 / 22, within(1e-12)); // 3/22 + 0
    // The sampler's draws follow these probabilities (200,000 draws of a fixed stream; 4 sigma is about 0.0045).
    Rng r = new Rng(3);
    int[] hits = new int[3];
    int draws = 200_000;
    for (int k = 0; k < draws; k++) hits[p.drawSlot(r.nextDouble(), r.nextDouble())]++;
    for (int j = 0; j < 3; j++) assertThat((double) hits[j] / draws).as("slot " + j).isCloseTo(pr[j], within(0.005));
    assertThat(hits[2]).isLessThan((int) (draws * 0.14)); // never from the staleness half: 3/22 = 0.136
  }

  /** beta = 0.1 (the paper's): weights (1/rank)^(1/beta), about (1/rank)^10, so the top level takes almost all of P_S. */
  @Test
  void lowTemperatureConcentratesOnTheTopRank() {
    PrioritizedLevelReplay p = sampler(20, new PrioritizedLevelReplay.Settings(1f, 0.1f, 0f, 3, 3));
    p.update(4, 0.1f, false, false);
    p.update(9, 0.3f, false, false);
    p.update(1, 0.2f, false, false);
    double e = 1.0 / 0.1f; // 1/beta with beta the float 0.1f: 9.99999985
    double z = 1 + Math.pow(2, -e) + Math.pow(3, -e);
    double[] pr = p.probabilities();
    assertThat(pr[1]).isCloseTo(1 / z, within(1e-12));
    assertThat(pr[2]).isCloseTo(Math.pow(2, -e) / z, within(1e-12));
    assertThat(pr[0]).isCloseTo(Math.pow(3, -e) / z, within(1e-12));
    // Equal scores rank by store index: level 1 before level 4.
    p.update(4, 0.2f, false, false);
    pr = p.probabilities();
    assertThat(pr[2]).isCloseTo(Math.pow(2, -e) / z, within(1e-12));
    assertThat(pr[0]).isCloseTo(Math.pow(3, -e) / z, within(1e-12));
  }

  @Test
  void fullBufferEvictsTheLowestScoreOnlyForAHigherOne() {
    PrioritizedLevelReplay p = sampler(20, new PrioritizedLevelReplay.Settings(0.5f, 0.1f, 0.1f, 2, 2));
    p.update(10, 0.5f, false, false);
    p.update(11, 0.1f, false, false);
    p.update(12, 0.05f, false, false); // lower than everything: dropped
    assertThat(levels(p)).containsExactly(10, 11);
    p.update(13, 0.3f, false, false); // evicts 11 (0.1)
    assertThat(levels(p)).containsExactly(10, 13);
    p.update(10, 0.01f, false, false); // a buffered level's score is replaced
    assertThat(p.bufferScore(0)).isEqualTo(0.01f);
    p.update(14, 0.2f, false, false); // evicts 10 (now 0.01)
    assertThat(levels(p)).containsExactly(14, 13);
    assertThat(p.meanScore()).isCloseTo(0.25, within(1e-6));
  }

  private static List<Integer> levels(PrioritizedLevelReplay p) {
    List<Integer> l = new ArrayList<>();
    for (int j = 0; j < p.bufferCount(); j++) l.add(p.bufferLevel(j));
    return l;
  }

  @Test
  void replaysWithTheReplayProbabilityOnlyOnceTheBufferHoldsMinBuffer() {
    PrioritizedLevelReplay p = sampler(1000, new PrioritizedLevelReplay.Settings(0.3f, 0.1f, 0.1f, 50, 20));
    long episode = 0;
    while (p.bufferCount() < 20) {
      int k = p.storeIndex(0, episode++);
      assertThat(p.currentReplayed(0)).isFalse();
      p.update(k, (k % 17) / 17f, false, false);
    }
    assertThat(p.counters().replays()).isZero();
    long resets0 = p.counters().resets();
    int n = 40_000;
    for (int k = 0; k < n; k++) p.storeIndex(1, k);
    long replays = p.counters().replays();
    assertThat((double) replays / (p.counters().resets() - resets0)).isCloseTo(0.3, within(0.01));
    // A replayed level comes from the buffer.
    List<Integer> buf = levels(p);
    for (int k = 0; k < 200; k++) {
      int lvl = p.storeIndex(1, n + k);
      if (p.currentReplayed(1)) assertThat(buf).contains(lvl);
    }
  }

  @Test
  void withoutReplayItPlaysTheUniformSamplersLevels() {
    LevelStore st = store(300);
    PrioritizedLevelReplay p = new PrioritizedLevelReplay(st, 3, new PrioritizedLevelReplay.Settings(0f, 0.1f, 0.1f, 4, 1), 99, 5);
    LevelSampler u = LevelSampler.uniform(st, 99);
    for (long e = 0; e < 100; e++) {
      for (int i = 0; i < 3; i++) {
        int k = p.storeIndex(i, e);
        assertThat(k).isEqualTo(u.storeIndex(i, e));
        assertThat(p.storeIndex(i, e)).as("asking again for the same episode").isEqualTo(k);
        p.update(k, (float) ((k * 37) % 11), e % 3 == 0, false);
      }
    }
    assertThat(p.bufferCount()).isEqualTo(4);
  }

  @Test
  void savedStateContinuesIdentically() throws Exception {
    var s = new PrioritizedLevelReplay.Settings(0.5f, 0.5f, 0.2f, 30, 10);
    PrioritizedLevelReplay a = sampler(500, s);
    for (long e = 0; e < 60; e++) for (int i = 0; i < 2; i++) a.update(a.storeIndex(i, e), (e * 7 + i) % 13 / 13f, i == 0, a.currentReplayed(i));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    a.save(new DataOutputStream(bytes));
    PrioritizedLevelReplay b = sampler(500, s);
    b.storeIndex(0, 0); // state that the load must overwrite
    b.update(3, 1f, false, false);
    b.load(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertThat(b.counters()).isEqualTo(a.counters());
    assertThat(b.probabilities()).containsExactly(a.probabilities());
    for (long e = 60; e < 200; e++) {
      for (int i = 0; i < 2; i++) {
        int ka = a.storeIndex(i, e), kb = b.storeIndex(i, e);
        assertThat(kb).isEqualTo(ka);
        float sc = (e * 5 + i) % 11 / 11f;
        a.update(ka, sc, false, a.currentReplayed(i));
        b.update(kb, sc, false, b.currentReplayed(i));
      }
    }
    assertThat(levels(b)).isEqualTo(levels(a));
    assertThat(a.counters().replays()).isGreaterThan(0);
  }
}
