package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromptTest {
  @TempDir Path tmp;
  static final Puzzle P = Puzzle.of(LlmBoard.parse(LlmBoardTest.QUESTION, "q"), "DLLRRDLL", "sokoban", 0, null, java.util.Map.of());

  @Test
  void defaultTemplateHasRulesAndTheLabeledBoard() {
    List<Prompt.Message> m = Prompt.defaults().messages(P);
    assertThat(m).extracting(Prompt.Message::role).containsExactly("system", "user");
    assertThat(m.get(0).content()).contains("+ wall", "% player on a goal", "<answer>", "pushes");
    assertThat(m.get(1).content()).contains("6x7 puzzle with 2 boxes")
        .endsWith("  0 1 2 3 4 5\n0 + + + + + +\n1 + + + - * +\n2 + X - @ - +\n3 + X - @ - +\n4 + - - - - +\n5 + - - + - +\n6 + + + + + +")
        .doesNotContain("{{");
  }

  @Test
  void aUserTemplateReplacesTheDefault() throws Exception {
    Path f = tmp.resolve("t.json");
    Files.writeString(f, "{\"messages\": [{\"role\": \"user\", \"content\": \"Board:\\n{{question}}\\nGo.\"}]}");
    List<Prompt.Message> m = Prompt.load(f).messages(P);
    assertThat(m).containsExactly(new Prompt.Message("user", "Board:\n" + LlmBoardTest.QUESTION + "\nGo."));
  }

  @Test
  void badTemplatesAreUserErrors() {
    assertThatThrownBy(() -> Prompt.parse("{\"messages\": []}", "t.json")).isInstanceOf(UserError.class)
        .hasMessage("template t.json: needs a non-empty \"messages\" array");
    assertThatThrownBy(() -> Prompt.parse("{\"messages\": [{\"role\": \"user\", \"content\": \"{{bord}}\"}]}", "t.json"))
        .isInstanceOf(UserError.class).hasMessageContaining("message 1: unknown placeholder {{bord}}");
    assertThatThrownBy(() -> Prompt.parse("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}", "t.json"))
        .isInstanceOf(UserError.class).hasMessageContaining("no {{board}} or {{question}}");
    assertThatThrownBy(() -> Prompt.parse("{\"messages\": [{\"role\": \"bot\", \"content\": \"{{board}}\"}]}", "t.json"))
        .isInstanceOf(UserError.class).hasMessageContaining("role 'bot'");
    assertThatThrownBy(() -> Prompt.load(tmp.resolve("none.json"))).isInstanceOf(UserError.class)
        .hasMessageContaining("cannot read template");
  }
}
