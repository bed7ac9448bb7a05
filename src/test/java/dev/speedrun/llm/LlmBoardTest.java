package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import org.junit.jupiter.api.Test;

class LlmBoardTest {
  // The first row of the benchmark's eval file, in both forms.
  static final String QUESTION = "+ + + + + +\n+ + + - * +\n+ X - @ - +\n+ X - @ - +\n+ - - - - +\n+ - - + - +\n+ + + + + +";
  static final String GAMESTR = "+ + + + + +  \n+ + + - * +  \n+ X - @ - +  \n+ X - @ - +  \n+ - - - - +  \n+ - - + - +  \n+ + + + + +  \n\n";

  @Test
  void parsesQuestionIntoTheSameLevelAsXsb() {
    Level l = LlmBoard.parse(QUESTION, "q");
    Level xsb = Formats.parseXsb("######\n### @#\n#. $ #\n#. $ #\n#    #\n#  # #\n######", "x");
    assertThat(l).isEqualTo(xsb);
    assertThat(l.width()).isEqualTo(6);
    assertThat(l.height()).isEqualTo(7);
  }

  @Test
  void gamestrFormWithTrailingSpacesParsesToTheSameLevel() {
    assertThat(LlmBoard.parse(GAMESTR, "g")).isEqualTo(LlmBoard.parse(QUESTION, "q"));
  }

  @Test
  void writesBothFormsExactly() {
    Level l = LlmBoard.parse(QUESTION, "q");
    assertThat(LlmBoard.question(l)).isEqualTo(QUESTION);
    assertThat(LlmBoard.gamestr(l)).isEqualTo(GAMESTR);
  }

  @Test
  void everyGlyphRoundTrips() {
    String b = "+ + + + + + +\n+ % $ @ @ X +\n+ - - - - - +\n+ + + + + + +";
    Level l = LlmBoard.parse(b, "b");
    assertThat(l.player()).isEqualTo(8);
    assertThat(l.isGoal(8)).isTrue();
    assertThat(l.hasBox(9) && l.isGoal(9)).isTrue();
    assertThat(l.hasBox(10) && !l.isGoal(10)).isTrue();
    assertThat(!l.hasBox(12) && l.isGoal(12)).isTrue();
    assertThat(LlmBoard.question(l)).isEqualTo(b);
    // Player on goal and box on goal are the combined glyphs.
    assertThat(LlmBoard.parse("+++\n+*+\n+$+\n+++", "u").toXsb()).isEqualTo("###\n#@#\n#*#\n###");
  }

  @Test
  void labelsRowsAndColumns() {
    Level l = LlmBoard.parse("+ + + +\n+ * @ +\n+ X - +\n+ + + +", "b");
    assertThat(LlmBoard.labeled(l)).isEqualTo("  0 1 2 3\n0 + + + +\n1 + * @ +\n2 + X - +\n3 + + + +");
  }

  @Test
  void badBoardsNameTheFault() {
    assertThatThrownBy(() -> LlmBoard.parse("+ + + +\n+ * # +", "f.jsonl line 3"))
        .isInstanceOf(UserError.class).hasMessageContaining("f.jsonl line 3 board row 2 column 3: unknown cell '#'");
    assertThatThrownBy(() -> LlmBoard.parse("+ + + +\n+ * @", "s"))
        .isInstanceOf(UserError.class).hasMessageContaining("row 2: has 3 cells, expected 4");
    assertThatThrownBy(() -> LlmBoard.parse("+ + + +\n+ * @ +\n+ - - +", "s"))
        .isInstanceOf(UserError.class).hasMessageContaining("invalid board: 1 boxes but 0 goals");
    assertThatThrownBy(() -> LlmBoard.parse("+ ++ +", "s"))
        .isInstanceOf(UserError.class).hasMessageContaining("more than one character");
    assertThatThrownBy(() -> LlmBoard.parse(" \n\n", "s"))
        .isInstanceOf(UserError.class).hasMessageContaining("s: empty board");
  }

  @Test
  void agreesWithTheIndependentReaderAndWritersInSokobanFormats() {
    // sokoban.Formats (foundation) implements the same legend separately: both must agree.
    for (Puzzle p : Datasets.read(SharedData.llmEval())) {
      Level mine = LlmBoard.parse(p.question(), "q");
      assertThat(Formats.parseRg(p.question(), "q")).isEqualTo(mine);
      assertThat(Formats.parseRg(p.metadata().gamestr(), "g")).isEqualTo(mine);
      assertThat(Formats.toRgQuestion(mine)).isEqualTo(LlmBoard.question(mine)).isEqualTo(p.question());
      assertThat(Formats.toRgGamestr(mine)).isEqualTo(LlmBoard.gamestr(mine)).isEqualTo(p.metadata().gamestr());
    }
  }
}
