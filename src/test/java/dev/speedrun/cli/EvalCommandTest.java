package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Policies;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EvalCommandTest {
  static String[] run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter(), err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }

  @Test
  void scoresACheckpointOnASplitAndPrintsJson(@TempDir Path dir) throws Exception {
    Path ck = dir.resolve("ck.safetensors");
    Policies.save(ck, new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 3)), Map.of());
    Files.createDirectories(dir.resolve("lv/mini"));
    Files.writeString(dir.resolve("lv/mini/000.txt"), "; 0\n#####\n#@$.#\n#####\n\n; 1\n######\n#@ $.#\n######\n");
    Path outFile = dir.resolve("eval.json");
    String[] r = run("eval", "--checkpoint", ck.toString(), "--levels", dir.resolve("lv").toString(), "--split", "mini",
        "--json", "--threads", "2", "--out", outFile.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    JsonNode j = new ObjectMapper().readTree(r[1]);
    assertThat(j.get("n_levels").asInt()).isEqualTo(2);
    assertThat(j.get("levels")).hasSize(2);
    assertThat(j.get("official_split").asBoolean()).isFalse();
    assertThat(j.has("bar")).isFalse();
    assertThat(j.get("checkpoint").get("sha256").asText()).hasSize(64);
    assertThat(new ObjectMapper().readTree(Files.readString(outFile))).isEqualTo(j);
  }

  @Test
  void sampledPolicyReportsPassAtK(@TempDir Path dir) throws Exception {
    Path ck = dir.resolve("ck.safetensors");
    Policies.save(ck, new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 3)), Map.of());
    Files.createDirectories(dir.resolve("lv/mini"));
    Files.writeString(dir.resolve("lv/mini/000.txt"), "; 0\n#####\n#@$.#\n#####\n\n; 1\n######\n#@ $.#\n######\n");
    String[] args = {"eval", "--checkpoint", ck.toString(), "--levels", dir.resolve("lv").toString(), "--split", "mini",
        "--samples", "4", "--seed", "5", "--json"};
    String[] r = run(args);
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    JsonNode j = new ObjectMapper().readTree(r[1]);
    assertThat(j.get("policy").asText()).isEqualTo("sampled");
    assertThat(j.get("samples_per_level").asInt()).isEqualTo(4);
    assertThat(j.has("pass_at_k")).isTrue();
    assertThat(j.has("ci95_wilson")).isFalse();
    assertThat(j.get("levels").get(0).get("steps")).hasSize(4);
    // Same seed, same results (timing aside).
    JsonNode again = new ObjectMapper().readTree(run(args)[1]);
    assertThat(again.get("levels")).isEqualTo(j.get("levels"));
  }

  @Test
  void refusesAFakeTestSplitWithOneSentence(@TempDir Path dir) throws Exception {
    Path ck = dir.resolve("ck.safetensors");
    Policies.save(ck, new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 3)), Map.of());
    Files.createDirectories(dir.resolve("lv/unfiltered/test"));
    Files.writeString(dir.resolve("lv/unfiltered/test/000.txt"), "; 0\n#####\n#@$.#\n#####\n");
    String[] r = run("eval", "--checkpoint", ck.toString(), "--levels", dir.resolve("lv").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).isEmpty();
    assertThat(r[2]).startsWith("error: split unfiltered/test").contains("refusing").doesNotContain("Exception");
  }

  @Test
  void aBadCheckpointIsOneSentence(@TempDir Path dir) throws Exception {
    Path ck = dir.resolve("ck.safetensors");
    Files.writeString(ck, "not a checkpoint");
    Files.createDirectories(dir.resolve("lv/mini"));
    Files.writeString(dir.resolve("lv/mini/000.txt"), "; 0\n#####\n#@$.#\n#####\n");
    String[] r = run("eval", "--checkpoint", ck.toString(), "--levels", dir.resolve("lv").toString(), "--split", "mini");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).startsWith("error: ").doesNotContain("Exception");
  }

  @Test
  void acceptsACheckpointFolderOrARunFolder(@TempDir Path dir) throws Exception {
    Path ck = dir.resolve("run/checkpoints/it-000050");
    Files.createDirectories(ck);
    Policies.save(ck.resolve("policy.safetensors"), new DefaultPolicy(new DefaultPolicy.Config(16, 1, 5, 3)), Map.of());
    Files.writeString(dir.resolve("run/checkpoints/latest"), "it-000050\n");
    Files.createDirectories(dir.resolve("lv/mini"));
    Files.writeString(dir.resolve("lv/mini/000.txt"), "; 0\n#####\n#@$.#\n#####\n");
    String file = ck.resolve("policy.safetensors").toString();
    for (Path given : new Path[] {ck, dir.resolve("run")}) {
      String[] r = run("eval", "--checkpoint", given.toString(), "--levels", dir.resolve("lv").toString(), "--split", "mini", "--json");
      assertThat(r[0]).as(r[2]).isEqualTo("0");
      assertThat(new ObjectMapper().readTree(r[1]).get("checkpoint").get("path").asText()).isEqualTo(file);
    }
    String[] bad = run("eval", "--checkpoint", dir.resolve("lv").toString(), "--split", "mini");
    assertThat(bad[0]).isEqualTo("2");
    assertThat(bad[2]).contains("neither policy.safetensors nor checkpoints/").doesNotContain("Exception");
  }

  @Test
  void helpShowsThePercentSign() {
    String[] r = run("eval", "--help");
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1]).contains("the 95% percentile-bootstrap");
    assertThat(r[2]).doesNotContain("WARN");
  }
}
