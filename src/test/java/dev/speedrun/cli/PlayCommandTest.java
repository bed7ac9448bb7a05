package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The play command's flags: loopback by default, bad values refused in one sentence. */
class PlayCommandTest {
  @Test
  void bindsToLoopbackOnPort8080ByDefault() {
    PlayCommand cmd = new PlayCommand();
    new CommandLine(cmd).parseArgs();
    assertThat(cmd.host).isEqualTo("127.0.0.1");
    assertThat(cmd.port).isEqualTo(8080);
  }

  @Test
  void badFlagsAreOneSentenceErrors() {
    assertThat(run("play", "--port", "70000")).isEqualTo("error: --port 70000 is outside 0..65535");
    assertThat(run("play", "--levels", "/no/such/folder", "--port", "0")).startsWith("error: --levels /no/such/folder: no such directory");
    assertThat(run("play", "--host", "no-such-host.invalid", "--port", "0")).startsWith("error: --host no-such-host.invalid");
  }

  @Test
  void thePageUsesTheProjectsSolver() {
    dev.speedrun.sokoban.Level level = dev.speedrun.sokoban.Formats.parseXsb("########\n#      #\n# $ .  #\n#  @$. #\n# .$   #\n#      #\n########", "t");
    String moves = WebWiring.solver().solve(level).orElseThrow();
    assertThat(new dev.speedrun.sokoban.Game(level).play(moves).isSolved()).isTrue();
    dev.speedrun.sokoban.Level stuck = dev.speedrun.sokoban.Formats.parseXsb("#####\n#@$ #\n#.###\n#####", "t");
    assertThat(WebWiring.solver().solve(stuck)).isEmpty();
  }

  @Test
  void generatedLevelsOfBothStylesAreSolvableAndDeterministic() {
    var gen = WebWiring.generator();
    for (long seed = 0; seed < 4; seed++) {
      var box = gen.generate("boxoban", seed);
      assertThat(box.width()).isEqualTo(10);
      assertThat(box.boxCount()).isEqualTo(4);
      assertThat(gen.generate("boxoban", seed)).isEqualTo(box);
      var llm = gen.generate("llm", seed);
      assertThat(llm.width()).isBetween(6, 7);
      assertThat(llm.height()).isBetween(6, 7);
      assertThat(llm.boxCount()).isBetween(2, 3);
      assertThat(WebWiring.solver().solve(llm)).isPresent();
    }
  }

  private static String run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    assertThat(code).isEqualTo(2);
    return err.toString().trim();
  }
}
