package dev.speedrun.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The page plays by web/sokoban.js, a copy of {@link Game}: this runs that file under node on the
 * same levels and moves as the Java engine and compares every move's outcome and the final boards.
 */
class SokobanJsRulesTest {
  private final ObjectMapper json = new ObjectMapper();

  record Case(String level, String actions) {}

  @Test
  void pageRulesMatchTheJavaEngineMoveByMove() throws Exception {
    var node = TestTools.which("node");
    assumeTrue(node.isPresent(), "node is not installed: skipping the page-rules check (.ci/run installs it)");

    List<Case> cases = new ArrayList<>();
    SplittableRandom rng = new SplittableRandom(7);
    String letters = "UDLR";
    for (String f : List.of("unfiltered/valid/000.txt", "medium/valid/000.txt")) {
      Path p = TestTools.boxoban().resolve(f);
      List<Formats.Entry> entries = Formats.parseBoxoban(Files.readString(p), p.toString());
      for (int i = 0; i < 60; i++) {
        StringBuilder a = new StringBuilder();
        for (int k = 0; k < 300; k++) a.append(letters.charAt(rng.nextInt(4)));
        cases.add(new Case(entries.get(i).level().toXsb(), a.toString()));
      }
    }
    // Levels touching the grid's edge (no walls), combined glyphs, box against box, a solve.
    cases.add(new Case("@$.", "RRRLLLR"));
    cases.add(new Case("$@.", "LLRRR"));
    cases.add(new Case("@\n$\n.", "DDDUUD"));
    cases.add(new Case("+$*", "RRLLRR"));
    cases.add(new Case("@$$..", "RRRR"));
    cases.add(new Case("#####\n#@$.#\n#####", "R"));
    cases.add(new Case("  ####\n###  #\n#.$@ #\n######", "LLRRUL"));

    List<String> javaOutcomes = new ArrayList<>();
    List<Game> javaGames = new ArrayList<>();
    for (Case c : cases) {
      Game g = new Game(Formats.parseXsb(c.level(), "case"));
      StringBuilder o = new StringBuilder();
      for (char ch : c.actions().toCharArray()) o.append(g.move(Direction.ofLetter(ch)).name().charAt(0));
      javaOutcomes.add(o.toString());
      javaGames.add(g);
    }

    JsonNode out = runNode(node.get(), json.writeValueAsString(cases));
    assertThat(out.size()).isEqualTo(cases.size());
    int pushes = 0;
    for (int i = 0; i < cases.size(); i++) {
      JsonNode r = out.get(i);
      Game g = javaGames.get(i);
      assertThat(r.path("outcomes").asText()).as("case %d outcomes", i).isEqualTo(javaOutcomes.get(i));
      assertThat(r.path("xsb").asText()).as("case %d board", i).isEqualTo(g.toLevel().toXsb());
      assertThat(r.path("moves").asInt()).as("case %d moves", i).isEqualTo(g.moves());
      assertThat(r.path("pushes").asInt()).as("case %d pushes", i).isEqualTo(g.pushes());
      assertThat(r.path("solved").asBoolean()).as("case %d solved", i).isEqualTo(g.isSolved());
      pushes += g.pushes();
    }
    assertThat(pushes).as("the random walks push boxes").isGreaterThan(100);
    assertThat(out.get(cases.size() - 2).path("solved").asBoolean()).isTrue();
  }

  @Test
  void pageParserRejectsWhatTheJavaParserRejects() throws Exception {
    var node = TestTools.which("node");
    assumeTrue(node.isPresent(), "node is not installed: skipping the page-rules check (.ci/run installs it)");
    List<String> boards = List.of("@@$..", "#x#\n@$.", "@", "@$..", "   \n  ", "#@$.#");
    List<Case> cases = boards.stream().map(b -> new Case(b, "")).toList();
    JsonNode out = runNode(node.get(), json.writeValueAsString(cases));
    for (int i = 0; i < boards.size(); i++) {
      boolean javaOk;
      try {
        Level l = Formats.parseXsb(boards.get(i), "case");
        javaOk = l != null;
      } catch (UserError e) {
        javaOk = false;
      }
      assertThat(!out.get(i).has("error")).as("board %s accepted", boards.get(i)).isEqualTo(javaOk);
    }
  }

  private JsonNode runNode(Path node, String input) throws Exception {
    Path script = TestTools.repo().resolve("src/test/e2e/rules-check.js");
    Process p = new ProcessBuilder(node.toString(), script.toString()).redirectErrorStream(false).start();
    try (var in = p.getOutputStream()) {
      in.write(input.getBytes(StandardCharsets.UTF_8));
    }
    byte[] stdout = p.getInputStream().readAllBytes();
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("node failed: %s", stderr).isZero();
    JsonNode out = json.readTree(stdout);
    assertThat(out).isInstanceOf(ArrayNode.class);
    return out;
  }
}
