package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

class FormatsTest {
  static final String XSB = String.join("\n",
      "#######",
      "#+ $* #",
      "# .$   ",
      "#######");

  @Test
  void xsbReadsEveryGlyph() {
    Level l = Formats.parseXsb(XSB, "t");
    assertThat(l.width()).isEqualTo(7);
    assertThat(l.height()).isEqualTo(4);
    assertThat(l.cell(1, 1)).isEqualTo((byte) (Level.PLAYER | Level.GOAL));
    assertThat(l.cell(1, 3)).isEqualTo(Level.BOX);
    assertThat(l.cell(1, 4)).isEqualTo((byte) (Level.BOX | Level.GOAL));
    assertThat(l.cell(2, 2)).isEqualTo(Level.GOAL);
    assertThat(l.cell(0, 0)).isEqualTo(Level.WALL);
    assertThat(l.toXsb()).isEqualTo(XSB);
    // '-' and '_' are floor too; short rows are padded with floor
    assertThat(Formats.parseXsb(XSB.replace("# .$   ", "#_.$-"), "t")).isEqualTo(l);
  }

  @Test
  void xsbErrors() {
    assertThatThrownBy(() -> Formats.parseXsb("\n \n", "f.xsb")).isInstanceOf(UserError.class).hasMessage("f.xsb: empty board");
    assertThatThrownBy(() -> Formats.parseXsb("#@$.#\n#x  #", "f.xsb")).hasMessage("f.xsb line 2 column 2: unknown character 'x'");
    assertThatThrownBy(() -> Formats.parseXsb("\n\n#@$.#\n#x  #", "f.xsb")).hasMessage("f.xsb line 4 column 2: unknown character 'x'");
    assertThatThrownBy(() -> Formats.parseXsb("# $.#", "f")).hasMessageContaining("no player");
    assertThatThrownBy(() -> Formats.parseXsb("#@@$.#", "f")).hasMessageContaining("2 players");
    assertThatThrownBy(() -> Formats.parseXsb("#@$$.#", "f")).hasMessageContaining("2 boxes but 1 goals");
    assertThatThrownBy(() -> Formats.parseXsb("#@\t$.#", "f")).hasMessageContaining("unknown character '\\u0009'");
  }

  @Test
  void reasoningGymFormsRoundTripAndMatchXsb() {
    Level l = Formats.parseXsb(XSB, "t");
    String q = Formats.toRgQuestion(l);
    assertThat(q).isEqualTo(String.join("\n",
        "+ + + + + + +",
        "+ % - @ $ - +",
        "+ - X @ - - -",
        "+ + + + + + +"));
    String g = Formats.toRgGamestr(l);
    assertThat(g).isEqualTo("+ + + + + + +  \n+ % - @ $ - +  \n+ - X @ - - -  \n+ + + + + + +  \n\n");
    assertThat(Formats.parseRg(q, "q")).isEqualTo(l);
    assertThat(Formats.parseRg(g, "g")).isEqualTo(l);
    assertThat(Formats.parse(q, Formats.Format.RG, "q")).isEqualTo(l);
  }

  @Test
  void reasoningGymErrors() {
    assertThatThrownBy(() -> Formats.parseRg("+ + +\n+ * X\n+ @#+", "p")).isInstanceOf(UserError.class)
        .hasMessage("p line 3 column 4: expected a space between cells, found '#'");
    assertThatThrownBy(() -> Formats.parseRg("+ + +\n+ * X\n+ @ #", "p"))
        .hasMessageContaining("p line 3 column 5: unknown character '#'");
    assertThatThrownBy(() -> Formats.parseRg("+ + +\n+ * X -\n+ @ +", "p")).hasMessageContaining("line 2").hasMessageContaining("row has 4 cells, expected 3");
    assertThatThrownBy(() -> Formats.parseRg("+ + +\n+ - X\n+ @ +", "p")).hasMessageContaining("no player");
    assertThatThrownBy(() -> Formats.parseRg("\n\n", "p")).hasMessage("p: empty board");
  }

  /** The benchmark's own 256 LLM puzzles: both forms parse to one level, write back exactly, and gold answers solve it. */
  @Test
  void llmEvalSetRoundTripsAndGoldAnswersSolve() throws Exception {
    ObjectMapper m = new ObjectMapper();
    List<String> lines = Files.readAllLines(TestData.llmEval());
    assertThat(lines).hasSize(256);
    for (String line : lines) {
      JsonNode row = m.readTree(line);
      String q = row.get("question").asText(), g = row.get("metadata").get("gamestr").asText();
      Level a = Formats.parseRg(q, "question"), b = Formats.parseRg(g, "gamestr");
      assertThat(b).isEqualTo(a);
      assertThat(Formats.toRgQuestion(a)).isEqualTo(q);
      assertThat(Formats.toRgGamestr(a)).isEqualTo(g);
      assertThat(a.width()).isEqualTo(row.get("metadata").get("width").asInt());
      assertThat(a.height()).isEqualTo(row.get("metadata").get("height").asInt());
      assertThat(Formats.guess(q, "q")).isEqualTo(Formats.Format.RG);
      // lossless through XSB
      assertThat(Formats.parseXsb(a.toXsb(), "x")).isEqualTo(a);
      assertThat(new Game(a).play(row.get("answer").asText()).isSolved()).as(q).isTrue();
    }
  }

  @Test
  void boxobanTextRoundTrips() throws Exception {
    String text = Files.readString(TestData.boxoban().resolve("unfiltered/test/000.txt"));
    List<Formats.Entry> es = Formats.parseBoxoban(text, "000.txt");
    assertThat(es).hasSize(1000);
    assertThat(Formats.toBoxoban(es.stream().map(Formats.Entry::level).toList())).isEqualTo(text);
    for (Formats.Entry e : es) {
      assertThat(e.level().toXsb()).isEqualTo(e.rows());
      assertThat(Formats.parseRg(Formats.toRgQuestion(e.level()), "rg")).isEqualTo(e.level());
      assertThat(Formats.parseXsb(e.level().toXsb(), "xsb")).isEqualTo(e.level());
    }
    assertThat(es.get(3).index()).isEqualTo(3);
    assertThat(es.get(3).line()).isEqualTo(37);
  }

  @Test
  void formatIsGuessedOnlyWhenUnambiguous() {
    assertThat(Formats.guess("; 0\n#@$.#", "s")).isEqualTo(Formats.Format.BOXOBAN);
    assertThat(Formats.guess(XSB, "s")).isEqualTo(Formats.Format.XSB);
    assertThat(Formats.guess("+ + +\n+ * X", "s")).isEqualTo(Formats.Format.RG);
    // '@$*+' only, no walls '#' and no 'X': could be either
    assertThatThrownBy(() -> Formats.guess("+ * @ $", "s")).isInstanceOf(UserError.class)
        .hasMessageContaining("cannot tell whether the board is XSB or reasoning-gym");
    assertThat(Formats.formatOf("a.xsb", "+ * @ $", "s")).isEqualTo(Formats.Format.XSB);
    assertThat(Formats.formatOf("a.rg", "+ * @ $", "s")).isEqualTo(Formats.Format.RG);
    assertThat(Formats.Format.of("reasoning-gym")).isEqualTo(Formats.Format.RG);
    assertThatThrownBy(() -> Formats.Format.of("png")).hasMessageContaining("unknown format 'png'");
  }

  @Test
  void writeThenParseIsIdentityInEveryFormat() {
    Level l = Formats.parseXsb(XSB, "t");
    for (Formats.Format f : Formats.Format.values()) {
      assertThat(Formats.parse(Formats.write(l, f), f, "w")).as(f.name()).isEqualTo(l);
    }
  }

  @Test
  void boxobanFileErrors() {
    assertThatThrownBy(() -> Formats.parseBoxoban("", "e.txt")).hasMessage("e.txt: empty file, no levels");
    assertThatThrownBy(() -> Formats.parseBoxoban("; 0\n\n", "e.txt")).hasMessage("e.txt line 1: level 0 has no rows");
    assertThatThrownBy(() -> Formats.parseBoxoban("; 0\n#@$.#\n#@$.##\n", "e.txt")).hasMessage("e.txt line 3: row has 6 cells, expected 5");
  }
}
