package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The LLM-track agent's training path end to end on a tiny generated dataset: imitation, DAgger, PPO, eval. */
class LlmAgentTrainTest {
  private static String[] run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter(), out = new StringWriter();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(out));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), err.toString(), out.toString()};
  }

  static String[] tiny(Path txt) {
    return new String[] {"--set", "trainLevels=" + txt, "--set", "valLevels=10", "--set", "totalSteps=512", "--set", "numEnvs=16",
        "--set", "minibatchSegments=8", "--set", "horizon=16", "--set", "hidden=32", "--set", "layers=1", "--threads", "1", "--plain"};
  }

  @Test
  void imitationDaggerAndPpoOnGeneratedPuzzlesThenScored(@TempDir Path tmp) throws Exception {
    Path ds = tmp.resolve("train.jsonl"), txt = tmp.resolve("train.txt"), run = tmp.resolve("run");
    assertThat(run("llm", "dataset", "--split", "train", "--count", "50", "--seed", "3", "--out", ds.toString(),
        "--boxoban-out", txt.toString())[0]).isEqualTo("0");
    String[] args = concat(new String[] {"train", "--recipe", "llm-agent", "--imitate", ds.toString(), "--imitate-epochs", "2",
        "--dagger", "1,20,10,1", "--out", run.toString()}, tiny(txt));
    String[] r = run(args);
    assertThat(r[0]).as(r[1]).isEqualTo("0");
    String log = Files.readString(run.resolve("imitation.log"));
    assertThat(log).contains("40 solved puzzles").contains("imitation: epoch 2 loss").contains("dagger: round 1: 20 puzzles played")
        .contains("dagger: round 1 epoch 1 loss").contains("imitation: done in");
    var sum = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.resolve("summary.json").toFile());
    double imit = sum.get("imitation_seconds").asDouble(), ppo = sum.get("train_seconds").asDouble();
    assertThat(imit).isPositive();
    assertThat(sum.get("total_train_seconds").asDouble()).isEqualTo(imit + ppo);
    assertThat(Files.readString(run.resolve("run.json"))).contains("\"trainLevels\" : \"" + txt + "\"");
    Path ck;
    try (var s = Files.list(run.resolve("checkpoints"))) {
      ck = s.filter(p -> p.getFileName().toString().startsWith("it-")).findFirst().orElseThrow().resolve("policy.safetensors");
    }
    String[] e = run("llm", "eval", "--dataset", ds.toString(), "--agent", ck.toString(), "--limit", "8", "--k", "2", "--json");
    assertThat(e[0]).as(e[1]).isEqualTo("0");
  }

  @Test
  void aDatasetThatIsNotTheTrainFileIsRefused(@TempDir Path tmp) throws Exception {
    Path a = tmp.resolve("a.jsonl"), at = tmp.resolve("a.txt"), b = tmp.resolve("b.jsonl"), bt = tmp.resolve("b.txt");
    run("llm", "dataset", "--split", "train", "--count", "30", "--seed", "3", "--out", a.toString(), "--boxoban-out", at.toString());
    run("llm", "dataset", "--split", "train", "--count", "30", "--seed", "4", "--out", b.toString(), "--boxoban-out", bt.toString());
    String[] r = run(concat(new String[] {"train", "--recipe", "llm-agent", "--imitate", b.toString(), "--out",
        tmp.resolve("run").toString()}, tiny(at)));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).startsWith("error: --imitate " + b + " line 1: the board differs from level 0 of " + at).doesNotContain("Exception");
    assertThat(run("train", "--recipe", "fast")[1]).startsWith("error: --recipe fast: no such recipe (recipes: pinned, mingru, base, llm-agent, conv)");
    assertThat(run("train", "--dagger", "1,2", "--imitate", a.toString(), "--recipe", "llm-agent", "--set", "trainLevels=" + at,
        "--set", "valLevels=10", "--out", tmp.resolve("r2").toString())[1]).startsWith("error: --dagger [1, 2]: expected four positive numbers");
  }

  static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
