package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** User mistakes on the train command: one sentence, exit 2, no stack trace. */
class TrainCommandTest {
  private static String[] run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), err.toString()};
  }

  @Test
  void unknownRecipeFieldIsNamed() {
    String[] r = run("train", "--set", "numEnv=3");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).startsWith("error: --set numEnv: no such recipe field").doesNotContain("Exception");
  }

  @Test
  void badValueAndBadPairAreNamed() {
    assertThat(run("train", "--set", "gamma=high")[1]).startsWith("error: --set gamma=high: not a valid float");
    assertThat(run("train", "--set", "gamma")[1]).startsWith("error: --set gamma: expected KEY=VALUE");
  }

  @Test
  void resumeNeedsARunDirectory(@TempDir Path tmp) {
    String[] r = run("train", "--resume", tmp.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("is not a run directory (no run.json)");
  }

  @Test
  void forkMistakesAreOneSentence(@TempDir Path tmp) {
    assertThat(run("train", "--fork-at", "3")[1]).startsWith("error: --fork-at needs --fork");
    assertThat(run("train", "--fork", tmp.toString(), "--set", "gamma=0.9")[1]).startsWith("error: --fork needs --out");
    assertThat(run("train", "--fork", tmp.toString(), "--resume", tmp.toString())[1]).contains("not allowed with it");
    String[] r = run("train", "--fork", tmp.toString(), "--set", "gamma=0.9", "--out", tmp.resolve("f").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("is not a run directory (no run.json)").doesNotContain("Exception");
    assertThat(run("train", "--resume", tmp.toString(), "--seed", "43")[1]).contains("--seed is not allowed");
  }

  @Test
  void allowVectorChangeOnlyContinuesARun() {
    String[] r = run("train", "--allow-vector-change");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).startsWith("error: --allow-vector-change needs --resume or --fork").doesNotContain("Exception");
  }
}
