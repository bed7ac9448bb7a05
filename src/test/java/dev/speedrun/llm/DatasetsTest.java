package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetsTest {
  @TempDir Path tmp;

  @Test
  void readsTheBenchmarkEvalFileAndWritesItBackByteForByte() throws Exception {
    Path f = SharedData.llmEval();
    List<Puzzle> ps = Datasets.read(f);
    assertThat(ps).hasSize(256);
    Puzzle p0 = ps.get(0);
    assertThat(p0.answer()).isEqualTo("DLLRRDLL");
    assertThat(p0.metadata().sourceIndex()).isEqualTo(81);
    assertThat(p0.metadata().sourceDataset()).isEqualTo("sokoban");
    assertThat(p0.metadata().extra()).containsOnlyKeys("band", "ref_moves");
    assertThat(p0.level().boxCount()).isEqualTo(2);
    assertThat(new HashSet<>(ps.stream().map(Puzzle::question).toList())).hasSize(256);
    // Round trip: same JSON objects line by line (key order included).
    Path out = tmp.resolve("copy.jsonl");
    Datasets.write(out, ps);
    List<String> a = Files.readAllLines(f), b = Files.readAllLines(out);
    assertThat(b).hasSize(256);
    for (int i = 0; i < 256; i++) {
      JsonNode ja = Datasets.JSON.readTree(a.get(i)), jb = Datasets.JSON.readTree(b.get(i));
      assertThat(jb).isEqualTo(ja);
      assertThat(Datasets.JSON.writeValueAsString(jb)).isEqualTo(Datasets.JSON.writeValueAsString(ja));
    }
    assertThat(Datasets.read(out)).isEqualTo(Datasets.read(out));
  }

  @Test
  void malformedRowsNameFileAndLine() throws Exception {
    String good = Files.readAllLines(SharedData.llmEval()).get(0);
    check(good + "\n\n{\"question\": 3}\n", "line 3: \"question\" must be a string");
    check(good + "\n{not json\n", "line 2: not valid JSON");
    check("[1]\n", "line 1: expected a JSON object");
    check(good.replace("\"answer\": \"DLLRRDLL\", ", ""), "line 1: missing \"answer\"");
    check(good.replace("\"width\": 6", "\"width\": 7"), "line 1: question is 6x7 but metadata says width 7, height 7");
    check(good.replace("\"width\": 6", "\"width\": \"6\""), "line 1 metadata: \"width\" must be an integer");
    check(good.replace("+ X - @ - +  \\n+ X", "+ - - @ - +  \\n+ X"), "line 1 metadata gamestr: invalid board");
    check(good.replace("+ + + - * +  ", "+ + + - - +  ").replace("+ X - @ - +  \\n+ - -", "+ X - @ * +  \\n+ - -"),
        "line 1: metadata gamestr is not the same board as question");
    check(good.replace("+ X - @ - +\\n+ X", "+ X - # - +\\n+ X"), "line 1 question board row 3 column 4: unknown cell '#'");
    check("\n", "no rows");
    assertThatThrownBy(() -> Datasets.read(tmp.resolve("missing.jsonl")))
        .isInstanceOf(UserError.class).hasMessageEndingWith("missing.jsonl: no such file");
  }

  private void check(String content, String message) throws Exception {
    Path f = tmp.resolve("bad.jsonl");
    Files.writeString(f, content);
    assertThatThrownBy(() -> Datasets.read(f)).isInstanceOf(UserError.class)
        .hasMessageStartingWith(f.toString()).hasMessageContaining(message);
  }
}
