package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.sokoban.Level;
import java.util.List;
import org.junit.jupiter.api.Test;

class RewardTest {
  static final Level FIRST = LlmBoard.parse(LlmBoardTest.QUESTION, "first"); // gold DLLRRDLL
  // One box right of the player, its goal right of the box, free floor beyond.
  static final Level LINE = LlmBoard.parse("+ + + + + +\n+ * @ X - +\n+ + + + + +", "line");

  @Test
  void everyGoldAnswerOfTheBenchmarkEvalSetScoresOne() {
    List<Puzzle> ps = Datasets.read(SharedData.llmEval());
    assertThat(ps).hasSize(256);
    for (Puzzle p : ps) {
      for (String completion : List.of("<think>push</think><answer>" + p.answer() + "</answer>",
          "reasoning...\n#### " + p.answer())) {
        Reward.Result r = Reward.score(p.level(), completion);
        assertThat(r.reward()).as("row line %d", p.line()).isEqualTo(1.0);
        assertThat(r.moves()).isEqualTo(p.answer());
        assertThat(r.finalBoard().isSolved()).isTrue();
      }
      // A bare answer with no tags is no answer.
      assertThat(Reward.score(p.level(), p.answer()).reward()).isZero();
      // Dropping the last move leaves a box off its goal (gold answers are minimal in pushes here).
      String cut = p.answer().substring(0, p.answer().length() - 1);
      assertThat(Reward.score(p.level(), "<answer>" + cut + "</answer>").reward()).isZero();
    }
  }

  @Test
  void extractionFirstPairWinsEvenIfEmpty() {
    assertThat(Reward.extractAnswer("a <answer></answer> b <answer>DLLRRDLL</answer>")).isEmpty();
    Reward.Result r = Reward.score(FIRST, "<answer></answer><answer>DLLRRDLL</answer>");
    assertThat(r.answered()).isTrue();
    assertThat(r.moves()).isEmpty();
    assertThat(r.reward()).isZero();
    assertThat(Reward.score(FIRST, "<answer>DLLRRDLL</answer><answer></answer>").reward()).isEqualTo(1.0);
    // The pair is the first <answer> and the first </answer> after it.
    assertThat(Reward.extractAnswer("</answer> x <answer> DL <answer> LR </answer> y </answer>"))
        .isEqualTo(" DL <answer> LR ");
  }

  @Test
  void extractionFallsBackToTextAfterTheFirstHashes() {
    assertThat(Reward.extractAnswer("<answer>DLL (unclosed) #### RRDLL #### UU")).isEqualTo(" RRDLL #### UU");
    assertThat(Reward.extractAnswer("</answer>RR<answer>")).isNull();
    assertThat(Reward.extractAnswer("no answer here: DLLRRDLL")).isNull();
    assertThat(Reward.extractAnswer("####")).isEmpty();
    // An unclosed tag does not stop the fallback from solving.
    assertThat(Reward.score(FIRST, "<answer>UUU ####DLLRRDLL").reward()).isEqualTo(1.0);
    Reward.Result none = Reward.score(FIRST, "I think DLLRRDLL");
    assertThat(none.answered()).isFalse();
    assertThat(none.reward()).isZero();
    assertThat(none.finalBoard()).isEqualTo(FIRST);
  }

  @Test
  void onlyUppercaseUdlrAreMoves() {
    assertThat(Reward.moves("D, L, l, L? r R-R\nD L L x")).isEqualTo("DLLRRDLL");
    assertThat(Reward.score(FIRST, "<answer>D, L, L, R, R, D, L, L</answer>").reward()).isEqualTo(1.0);
    assertThat(Reward.score(FIRST, "<answer>dllrrdll</answer>").reward()).isZero();
    // Words count by their uppercase letters: "Down Left Left Right Right Down Left Left" is DLLRRDLL.
    assertThat(Reward.score(FIRST, "<answer>Down Left Left Right Right Down Left Left</answer>").moves())
        .isEqualTo("DLLRRDLL");
  }

  @Test
  void blockedMovesAreNoOpsAndThereIsNoStepCap() {
    // U from the start walks into a wall: no effect.
    assertThat(Reward.score(FIRST, "<answer>UUUUDLLRRDLL</answer>").reward()).isEqualTo(1.0);
    String many = "U".repeat(200_000) + "DLLRRDLL";
    assertThat(Reward.score(FIRST, "<answer>" + many + "</answer>").reward()).isEqualTo(1.0);
    // A box against a wall cannot be pushed: of RRRRR only the first two moves do anything.
    assertThat(Reward.score(LINE, "####RRRRR").finalBoard().toXsb()).isEqualTo("######\n#  +$#\n######");
  }

  @Test
  void movesAfterASolveAreStillAppliedAndTheFinalBoardDecides() {
    assertThat(Reward.score(LINE, "<answer>R</answer>").reward()).isEqualTo(1.0);
    assertThat(Reward.score(LINE, "<answer>RL</answer>").reward()).isEqualTo(1.0);
    Reward.Result off = Reward.score(LINE, "<answer>RR</answer>");
    assertThat(off.reward()).isZero();
    assertThat(off.finalBoard().toXsb()).isEqualTo("######\n#  +$#\n######");
  }
}
