package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
  @TempDir Path tmp;

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      var cl = Main.commandLine();
      cl.setErr(new PrintWriter(err, true));
      int code = cl.execute(args);
      return new Run(code, bytes.toString(StandardCharsets.UTF_8), err.toString());
    } finally {
      System.setOut(old);
    }
  }

  @Test
  void batchWritesOneResultPerCase() throws Exception {
    Path f = tmp.resolve("cases.jsonl");
    Files.writeString(f, """
        {"level": "#####\\n#@$.#\\n#####", "actions": "RRR"}
        {"level": "; 4\\n######\\n#@$ .#\\n######", "actions": "4"}

        {"level": "######\\n#@$ .#\\n######", "actions": ""}
        """);
    Run r = run("replay", "--batch", f.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out().lines().toList()).containsExactly(
        "{\"final\":\"#####\\n# @*#\\n#####\",\"return\":1.25,\"solved\":true,\"steps\":1,\"done_at\":1}",
        "{\"final\":\"######\\n# @$.#\\n######\",\"return\":0.0,\"solved\":false,\"steps\":1,\"done_at\":null}",
        "{\"final\":\"######\\n#@$ .#\\n######\",\"return\":0.0,\"solved\":false,\"steps\":0,\"done_at\":null}");
  }

  @Test
  void badRowsNameTheLine() throws Exception {
    Path f = tmp.resolve("bad.jsonl");
    Files.writeString(f, "{\"level\": \"#####\\n#@$.#\\n#####\", \"actions\": \"R\"}\n{\"level\": \"#####\\n#@$.#\\n#####\"}\n");
    Run r = run("replay", "--batch", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("error: " + f + " line 2: missing text field \"actions\"\n");
    Files.writeString(f, "{\"level\": \"#####\\n#@$x#\\n#####\", \"actions\": \"R\"}\n");
    assertThat(run("replay", "--batch", f.toString()).err()).contains(f + " line 1, board line 2 column 4: unknown character 'x'");
    Files.writeString(f, "[1]\n");
    assertThat(run("replay", "--batch", f.toString()).err()).contains(f + " line 1: expected a JSON object");
    Files.writeString(f, "{\"level\": \"#####\\n#@$.#\\n#####\", \"actions\": \"RX\"}\n");
    assertThat(run("replay", "--batch", f.toString()).err()).contains(f + " line 1: character 2 of the actions is 'X'");
  }

  @Test
  void singleLevelJson() throws Exception {
    Path f = tmp.resolve("l.xsb");
    Files.writeString(f, "######\n#@$ .#\n######\n");
    Run r = run("replay", "--level", f.toString(), "--actions", "44", "--json");
    assertThat(r.code()).isZero();
    assertThat(r.out().strip()).isEqualTo("{\"final\":\"######\\n#  @*#\\n######\",\"return\":1.25,\"solved\":true,\"steps\":2,\"done_at\":2}");
  }
}
