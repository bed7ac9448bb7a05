package dev.speedrun.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelStore;
import dev.speedrun.sokoban.TestData;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayTest {
  static final Level ROW = Formats.parseXsb("######\n#@$ .#\n######", "t");

  @Test
  void parsesLettersAndDigits() {
    assertThat(Replay.parseActions("UDLR udlr", "a")).containsExactly(2, 1, 3, 4, 2, 1, 3, 4);
    assertThat(Replay.parseActions("0,1,2,3,4", "a")).containsExactly(0, 1, 2, 3, 4);
    assertThatThrownBy(() -> Replay.parseActions("UD5", "a")).isInstanceOf(UserError.class)
        .hasMessage("a: character 3 of the actions is '5', expected U/D/L/R letters or action ids 0-4");
  }

  @Test
  void stopsAtTheFirstDone() {
    Replay.Result r = Replay.run(ROW, Replay.parseActions("RRLLL", "a"));
    assertThat(r.solved()).isTrue();
    assertThat(r.ret()).isEqualTo(1.25f);
    assertThat(r.steps()).isEqualTo(2);
    assertThat(r.doneAt()).isEqualTo(2);
    assertThat(r.finalBoard().toXsb()).isEqualTo("######\n#  @*#\n######");
  }

  @Test
  void timeoutEndsAt120AndNotDoneIsNull() {
    int[] noops = new int[200];
    Replay.Result r = Replay.run(ROW, noops);
    assertThat(r.solved()).isFalse();
    assertThat(r.ret()).isEqualTo(-1f);
    assertThat(r.steps()).isEqualTo(120);
    assertThat(r.doneAt()).isEqualTo(120);
    Replay.Result s = Replay.run(ROW, new int[] {4});
    assertThat(s.doneAt()).isNull();
    assertThat(s.steps()).isEqualTo(1);
    assertThat(s.ret()).isZero();
  }

  /** Replay and the environment are separate code; they must agree on every random episode. */
  @Test
  void agreesWithTheEnvironment() {
    LevelStore store = TestData.unfilteredTest();
    Rng rng = new Rng(4);
    for (int k = 0; k < 300; k++) {
      Level l = store.level(k);
      BoxobanEnv e = new BoxobanEnv(1, LevelSampler.inOrder(List.of(l), 1));
      e.reset();
      int[] acts = new int[150];
      for (int t = 0; t < acts.length; t++) acts[t] = rng.nextInt(5);
      Replay.Result r = Replay.run(l, acts);
      float ret = 0;
      int t = 0;
      Level before = null;
      while (true) {
        before = e.board(0);
        e.step(new int[] {acts[t]});
        ret += e.rewards[0];
        t++;
        if (e.dones[0]) break;
      }
      assertThat(r.doneAt()).isEqualTo(t);
      assertThat(r.ret()).isCloseTo(ret, within(1e-6f));
      assertThat(r.ret()).isCloseTo(e.lastReturn[0], within(1e-6f));
      assertThat(r.solved()).isEqualTo(e.lastSolved[0]);
      assertThat(before).isNotNull();
    }
  }
}
