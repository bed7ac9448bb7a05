package dev.speedrun.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Policies;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watch loop with the project's real policy, loaded from a checkpoint as the page loads it. */
class WatcherTest {
  @TempDir Path dir;

  @Test
  void aRealCheckpointPlaysGreedilyAndConsistently() throws Exception {
    Path f = TestTools.boxoban().resolve("unfiltered/valid/000.txt");
    Level level = Formats.parseBoxoban(Files.readString(f), f.toString()).get(0).level();
    DefaultPolicy net = new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 3));
    Path ckpt = dir.resolve("runs/a/model.safetensors");
    Files.createDirectories(ckpt.getParent());
    Policies.save(ckpt, net, Map.of());

    Watcher.Episode inMemory = Watcher.run(net, level);
    PolicyNet loaded = Policies.load(ckpt);
    Watcher.Episode fromFile = Watcher.run(loaded, level);

    assertThat(fromFile.steps()).hasSameSizeAs(inMemory.steps());
    Game g = new Game(level);
    for (int t = 0; t < fromFile.steps().size(); t++) {
      Watcher.Step s = fromFile.steps().get(t), m = inMemory.steps().get(t);
      assertThat(s.action()).isEqualTo(m.action());
      assertThat(s.probs()).containsExactly(m.probs());
      assertThat(s.value()).isEqualTo(m.value());
      double sum = 0;
      int best = 0;
      for (int i = 0; i < s.probs().length; i++) {
        sum += s.probs()[i];
        if (s.probs()[i] > s.probs()[best]) best = i;
      }
      assertThat(sum).isCloseTo(1.0, within(1e-5));
      assertThat(s.action()).isEqualTo(best);
      Direction d = Direction.ofAction(s.action());
      if (d != null) g.move(d);
    }
    // An untrained net does not solve a Boxoban level: the episode runs to the 120-step end.
    assertThat(fromFile.solved()).isEqualTo(g.isSolved()).isFalse();
    assertThat(fromFile.steps()).hasSize(120);
    assertThat(fromFile.doneAt()).isEqualTo(120);
  }

  @Test
  void softmaxMatchesTheDefinition() {
    float[] p = Watcher.softmax(new float[] {1f, 2f, 3f, -1000f, 0f});
    double z = Math.exp(1) + Math.exp(2) + Math.exp(3) + Math.exp(0);
    assertThat((double) p[0]).isCloseTo(Math.exp(1) / z, within(1e-6));
    assertThat((double) p[2]).isCloseTo(Math.exp(3) / z, within(1e-6));
    assertThat(p[3]).isEqualTo(0f);
  }
}
