package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.speedrun.sokoban.Level;
import org.junit.jupiter.api.Test;

class EpisodeTest {
  // Player, box, goal, floor, goal... in a corridor: two boxes, two goals.
  static final Level CORRIDOR = LlmBoard.parse("+ + + + + + + +\n+ * @ X - @ X +\n+ + + + + + + +", "c");

  @Test
  void gymSokobanRewardsByHand() {
    Episode e = new Episode(CORRIDOR, 5, 3);
    // Right: box onto goal (+1 - 0.1). Right: box off goal onto floor (-1 - 0.1).
    // Left: walk back (-0.1). Up: blocked by wall, still a step (-0.1).
    Episode.Turn t = e.step("Right || Right || Left || Up");
    assertThat(t.taken()).containsExactly("Right", "Right", "Left", "Up");
    assertThat(t.rewards()).containsExactly(0.9, -1.1, -0.1, -0.1);
    assertThat(t.reward()).isCloseTo(-0.4, within(1e-12));
    assertThat(t.done()).isFalse();
    assertThat(LlmBoard.question(e.board())).isEqualTo("+ + + + + + + +\n+ - * X @ @ X +\n+ + + + + + + +");
  }

  @Test
  void solvingEndsTheEpisodeAndSkipsTheRestOfTheTurn() {
    Episode e = new Episode(LlmBoard.parse("+ + + + +\n+ * @ X +\n+ + + + +", "s"), 5, 3);
    Episode.Turn t = e.step("right||Left||Left");
    assertThat(t.rewards()).containsExactly(-0.1 + 1 + 10);
    assertThat(t.ignored()).isEqualTo(2);
    assertThat(t.solved()).isTrue();
    assertThat(e.done()).isTrue();
  }

  @Test
  void invalidNamesAreSkippedAndOnlyMActionsCount() {
    Episode e = new Episode(CORRIDOR, 2, 2);
    Episode.Turn t = e.step("U || Jump || Left || Left || Left || ");
    assertThat(t.invalid()).containsExactly("U", "Jump");
    assertThat(t.taken()).containsExactly("Left", "Left");
    assertThat(t.ignored()).isEqualTo(1);
    assertThat(t.rewards()).containsExactly(-0.1, -0.1);
    e.step("");
    assertThat(e.done()).isTrue();
    assertThat(e.solved()).isFalse();
    assertThat(e.turnsLeft()).isZero();
  }
}
