package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LlmCommandTest {
  @TempDir Path tmp;

  static final String ROW0 = "{\"question\": \"+ + + + + +\\n+ + + - * +\\n+ X - @ - +\\n+ X - @ - +\\n+ - - - - +\\n+ - - + - +\\n+ + + + + +\", \"answer\": \"DLLRRDLL\", \"metadata\": {\"source_dataset\": \"sokoban\", \"source_index\": 81, \"gamestr\": \"+ + + + + +  \\n+ + + - * +  \\n+ X - @ - +  \\n+ X - @ - +  \\n+ - - - - +  \\n+ - - + - +  \\n+ + + + + +  \\n\\n\", \"width\": 6, \"height\": 7, \"difficulty\": {\"width\": [6, 7], \"height\": [6, 7]}}}";

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void scorePrintsEachRewardAndTheMean() throws Exception {
    Path ds = tmp.resolve("ds.jsonl"), cs = tmp.resolve("cs.jsonl");
    Files.writeString(ds, ROW0 + "\n");
    Files.writeString(cs, """
        {"index": 0, "completion": "<answer>DLLRRDLL</answer>"}
        {"index": 0, "completion": "#### D L L R R D L"}
        {"index": 0, "completion": "no idea"}
        {"index": 0, "completion": "<answer>LDLLRRDLL</answer>"}
        """);
    Run r = run("llm", "score", "--dataset", ds.toString(), "--completions", cs.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("count").asInt()).isEqualTo(4);
    assertThat(j.get("mean_reward").asDouble()).isEqualTo(0.25);
    assertThat(j.get("answer_rate").asDouble()).isEqualTo(0.75);
    assertThat(j.get("results").get(0).get("moves").asText()).isEqualTo("DLLRRDLL");
    assertThat(j.get("results").get(1).get("moves").asText()).isEqualTo("DLLRRDL");
    assertThat(j.get("results").get(2).get("answered").asBoolean()).isFalse();
    // A leading L shifts every push: only one box reaches a goal.
    assertThat(j.get("results").get(3).get("reward").asDouble()).isZero();
    Run text = run("llm", "score", "--dataset", ds.toString(), "--completions", cs.toString());
    assertThat(text.out()).contains("row 0  reward 1  moves DLLRRDLL").contains("mean reward 0.2500 over 4 completions");
  }

  @Test
  void badCompletionIndexIsAUserError() throws Exception {
    Path ds = tmp.resolve("ds.jsonl"), cs = tmp.resolve("cs.jsonl");
    Files.writeString(ds, ROW0 + "\n");
    Files.writeString(cs, "{\"index\": 3, \"completion\": \"x\"}\n");
    Run r = run("llm", "score", "--dataset", ds.toString(), "--completions", cs.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: " + cs + " line 1: index 3 is not a dataset row (0..0)\n");
  }

  @Test
  void evalAgainstAnInProcessServerWritesReportAndResumes() throws Exception {
    Path tpl = tmp.resolve("t.json"), out = tmp.resolve("runs/p.jsonl");
    Files.writeString(tpl, "{\"messages\": [{\"role\": \"user\", \"content\": \"{{question}}\"}]}");
    Path data = dev.speedrun.llm.FakeChatServerAccess.evalFile();
    try (var s = new dev.speedrun.llm.FakeChatServer()) {
      String[] args = {"llm", "eval", "--dataset", data.toString(), "--endpoint", s.endpoint(), "--model", "fake",
          "--limit", "5", "--template", tpl.toString(), "--out", out.toString(), "--json"};
      Run r = run(args);
      assertThat(r.code()).as(r.err()).isZero();
      JsonNode j = new ObjectMapper().readTree(r.out());
      assertThat(j.get("puzzles").asInt()).isEqualTo(5);
      assertThat(j.get("k").asInt()).isEqualTo(8);
      assertThat(j.get("n_mode").asText()).isEqualTo("n");
      assertThat(j.get("per_puzzle")).hasSize(5);
      assertThat(j.get("ci").get("method").asText()).isEqualTo("bootstrap");
      assertThat(Files.exists(tmp.resolve("runs/p.report.json"))).isTrue();
      int asked = s.requests.get();
      Run again = run(args);
      assertThat(again.code()).isZero();
      assertThat(s.requests.get()).isEqualTo(asked);
      assertThat(new ObjectMapper().readTree(again.out()).get("resumed_puzzles").asInt()).isEqualTo(5);
    }
    Run bad = run("llm", "eval", "--dataset", data.toString(), "--endpoint", "nope", "--model", "m", "--out", out.toString());
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).startsWith("error: --endpoint 'nope' is not an http(s) URL");
  }

  @Test
  void evalAnAgentCheckpointOnThePuzzles() throws Exception {
    Path ck = tmp.resolve("untrained.safetensors");
    dev.speedrun.nn.Policies.save(ck, new dev.speedrun.nn.DefaultPolicy(dev.speedrun.nn.DefaultPolicy.Config.DEFAULT), java.util.Map.of());
    Path data = dev.speedrun.llm.FakeChatServerAccess.evalFile();
    String[] args = {"llm", "eval", "--dataset", data.toString(), "--agent", ck.toString(), "--limit", "16", "--k", "2", "--json"};
    Run a = run(args), b = run(args);
    assertThat(a.code()).as(a.err()).isZero();
    JsonNode ja = new ObjectMapper().readTree(a.out()), jb = new ObjectMapper().readTree(b.out());
    assertThat(ja.get("puzzles").asInt()).isEqualTo(16);
    assertThat(ja.get("actions").asText()).isEqualTo("sampled");
    assertThat(ja.get("per_puzzle")).isEqualTo(jb.get("per_puzzle"));
    assertThat(ja.get("per_puzzle").get(0).get("moves")).hasSize(2);
    Run both = run("llm", "eval", "--dataset", data.toString(), "--agent", ck.toString(), "--model", "m");
    assertThat(both.code()).isEqualTo(2);
    Run neither = run("llm", "eval", "--dataset", data.toString());
    assertThat(neither.err()).startsWith("error: llm eval needs --endpoint and --model (or --agent CHECKPOINT)");
  }
}
