package dev.speedrun.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.eval.Intervals;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordsTest {
  static double[] flags(int solved) {
    double[] v = new double[1000];
    for (int i = 0; i < 1000; i++) v[i] = (i * 7919) % 1000 < solved ? 1 : 0;
    return v;
  }

  /** A complete record (seeds 42 and 43) in {@code tmp}/records. */
  static Path completeRecord(Path tmp, int solved42, int solved43) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path r42 = SyntheticRun.make(tmp.resolve("run42"), 42, solved42, 600);
    Path r43 = SyntheticRun.make(tmp.resolve("run43"), 43, solved43, 660);
    Path rec = Records.assemble(r42, tmp.resolve("records"), src, "Tiny Test!", "a tiny synthetic record", null);
    Records.assemble(r43, tmp.resolve("records"), src, null, null, rec);
    return rec;
  }

  @TempDir static Path shared;
  private static Path golden;

  /** A copy of one complete, verified record (seeds 42: 800 solved, 43: 780 solved), built once. */
  static synchronized Path goldenCopy(Path tmp) throws Exception {
    if (golden == null) golden = completeRecord(shared, 800, 780);
    Path to = tmp.resolve("records").resolve(golden.getFileName());
    try (Stream<Path> s = Files.walk(golden)) {
      for (Path p : s.toList()) {
        Path q = to.resolve(golden.relativize(p).toString());
        if (Files.isDirectory(p)) Files.createDirectories(q);
        else Files.copy(p, q);
      }
    }
    return to;
  }

  static String failures(RecordVerifier.Report r) {
    return r.checks().stream().filter(c -> !c.ok()).map(c -> c.what() + " (" + c.detail() + ")").toList().toString();
  }

  @Test
  void assemblesVerifiesAndRoundTrips(@TempDir Path tmp) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path r42 = SyntheticRun.make(tmp.resolve("run42"), 42, 800, 600);
    Path rec = Records.assemble(r42, tmp.resolve("records"), src, "Tiny Test!", "a tiny synthetic record", null);
    assertThat(rec.getFileName().toString()).isEqualTo("2026-12-02_01_tiny-test");
    for (String f : List.of("README.md", "record.json", "log.txt", "run.json", "summary.json", "metrics.jsonl", "eval.json",
        "policy.safetensors", "recipe.json", "source/SHA256SUMS", "source/REVISION", "source/src/main/java/dev/speedrun/rl/Recipe.java",
        "figures/training.png", "figures/losses.png", "figures/eval.png")) {
      assertThat(rec.resolve(f)).as(f).isRegularFile();
    }
    // Only the second seed is missing.
    RecordVerifier.Report one = RecordVerifier.verify(rec);
    assertThat(one.passed()).isFalse();
    assertThat(one.checks().stream().filter(c -> !c.ok()).map(RecordVerifier.Check::what))
        .containsExactlyInAnyOrder("verification: present", "seeds are 42 and 43");
    assertThat(Files.readString(rec.resolve("README.md"))).contains("pending").contains("## Idea");
    // A person writes the idea; adding the verification seed keeps it.
    Files.writeString(rec.resolve("README.md"), Files.readString(rec.resolve("README.md")).replace(Records.IDEA_PLACEHOLDER, "Smaller nets learn faster.\n"));
    Path r43 = SyntheticRun.make(tmp.resolve("run43"), 43, 780, 660);
    Records.assemble(r43, tmp.resolve("records"), src, null, null, rec);
    RecordVerifier.Report both = RecordVerifier.verify(rec);
    assertThat(both.passed()).as(both.text()).isTrue();
    JsonNode j = SyntheticRun.JSON.readTree(rec.resolve("record.json").toFile());
    double lo42 = Intervals.bootstrap(flags(800)).lo(), lo43 = Intervals.bootstrap(flags(780)).lo();
    assertThat(j.get("score").asDouble()).isEqualTo(Math.min(lo42, lo43)).isEqualTo(lo43);
    assertThat(j.get("time_seconds").asDouble()).isEqualTo(660);
    assertThat(j.get("clears_bar").asBoolean()).isTrue();
    String readme = Files.readString(rec.resolve("README.md"));
    assertThat(readme).contains("11:00").contains("cleared").contains("Smaller nets learn faster.").contains("| learningRate | 0.001 |");
    BufferedImage img = ImageIO.read(rec.resolve("figures/training.png").toFile());
    assertThat(img.getWidth()).isGreaterThan(100);
    // A second record the same day is numbered 02.
    Path r42b = SyntheticRun.make(tmp.resolve("run42b"), 42, 800, 500);
    assertThat(Records.assemble(r42b, tmp.resolve("records"), src, "again", null, null).getFileName().toString()).isEqualTo("2026-12-02_02_again");
    try (Stream<Path> s = Files.list(tmp.resolve("records"))) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".tmp"));
    }
  }

  /** record.json and README.md list every segment's machine, so a seed trained partly on another CPU or vector width shows it. */
  @Test
  void listsTheMachinesOfAllSegments(@TempDir Path tmp) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path r42 = SyntheticRun.make(tmp.resolve("run42"), 42, 800, 600);
    Path log = r42.resolve("log.txt");
    Files.writeString(log, Files.readString(log).replace("done:", String.join("\n",
        "resume: from checkpoints/it-000001 at iteration 1, step 100, clock 150.0s (2026-12-05T10:00:00Z)",
        "resume: from checkpoints/it-000002 at iteration 2, step 200, clock 300.0s (2026-12-08T10:00:00Z); machine: Test CPU, 2 cores; "
            + "jdk: Eclipse Adoptium 25+36; revision: unknown",
        "resume: from checkpoints/it-000003 at iteration 3, step 300, clock 450.0s (2026-12-08T11:00:00Z); machine: Zen 3, 2 cores, "
            + "256-bit vectors; jdk: Eclipse Adoptium 25+36; revision: unknown",
        "done:")));
    assertThat(RunDir.read(r42).segmentMachines).containsExactly("Test CPU, 2 cores", null, "Test CPU, 2 cores",
        "Zen 3, 2 cores, 256-bit vectors");
    Path rec = Records.assemble(r42, tmp.resolve("records"), src, "mixed", null, null);
    JsonNode j = SyntheticRun.JSON.readTree(rec.resolve("record.json").toFile());
    assertThat(j.get("machines")).extracting(JsonNode::asText).containsExactly("Test CPU, 2 cores", "Zen 3, 2 cores, 256-bit vectors");
    assertThat(j.get("segments").asInt()).isEqualTo(4);
    assertThat(j.get("segments_without_machine").asInt()).isEqualTo(1);
    assertThat(Files.readString(rec.resolve("README.md"))).contains("- Segments: 4 over the seeds (a start and its resumes), 2 machines: "
        + "Test CPU, 2 cores | Zen 3, 2 cores, 256-bit vectors; 1 resume names none (logged before resumes did)");
    Path r43 = SyntheticRun.make(tmp.resolve("run43"), 43, 780, 660);
    Records.assemble(r43, tmp.resolve("records"), src, null, null, rec);
    JsonNode both = SyntheticRun.JSON.readTree(rec.resolve("record.json").toFile());
    assertThat(both.get("segments").asInt()).isEqualTo(5);
    assertThat(Files.readString(rec.resolve("README.md"))).contains("- Segments: 5 over the seeds");
  }

  @Test
  void rejectsOverriddenRunsAndForeignEvaluations(@TempDir Path tmp) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path run = SyntheticRun.make(tmp.resolve("run"), 42, 800, 600);
    ObjectNode rj = (ObjectNode) SyntheticRun.JSON.readTree(run.resolve("run.json").toFile());
    rj.put("overridden", true);
    rj.putObject("overrides").put("learningRate", "0.01");
    Files.writeString(run.resolve("run.json"), rj.toString());
    assertThatThrownBy(() -> Records.assemble(run, tmp.resolve("records"), src, "x", null, null))
        .isInstanceOf(UserError.class).hasMessageContaining("overrides");

    Path run2 = SyntheticRun.make(tmp.resolve("run2"), 42, 800, 600);
    Files.writeString(run2.resolve("checkpoints/it-000004/policy.safetensors"), "retrained weights");
    assertThatThrownBy(() -> Records.assemble(run2, tmp.resolve("records"), src, "x", null, null))
        .isInstanceOf(UserError.class).hasMessageContaining("not the run's final checkpoint");

    Path run3 = SyntheticRun.make(tmp.resolve("run3"), 42, 800, 600);
    Files.delete(run3.resolve("eval.json"));
    assertThatThrownBy(() -> Records.assemble(run3, tmp.resolve("records"), src, "x", null, null))
        .isInstanceOf(UserError.class).hasMessageContaining("no eval.json");
    assertThat(tmp.resolve("records")).doesNotExist();
  }

  @Test
  void verificationMustBeAnotherSeedOfTheSameRecipe(@TempDir Path tmp) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path rec = Records.assemble(SyntheticRun.make(tmp.resolve("a"), 42, 800, 600), tmp.resolve("records"), src, "x", null, null);
    Path same = SyntheticRun.make(tmp.resolve("b"), 42, 800, 600);
    assertThatThrownBy(() -> Records.assemble(same, tmp.resolve("records"), src, null, null, rec)).isInstanceOf(UserError.class)
        .hasMessageContaining("seed 42");
    Path other = SyntheticRun.make(tmp.resolve("c"), 43, 800, 600);
    Files.writeString(other.resolve("log.txt"), Files.readString(other.resolve("log.txt")).replace("numEnvs = 256", "numEnvs = 512"));
    assertThatThrownBy(() -> Records.assemble(other, tmp.resolve("records"), src, null, null, rec)).isInstanceOf(UserError.class)
        .hasMessageContaining("numEnvs");
  }

  // ---- tampering ----

  static void editEval(Path evalJson, java.util.function.Consumer<ObjectNode> edit) throws Exception {
    ObjectNode j = (ObjectNode) SyntheticRun.JSON.readTree(evalJson.toFile());
    edit.accept(j);
    Files.writeString(evalJson, SyntheticRun.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(j));
  }

  static void assertFails(Path rec, String check) {
    RecordVerifier.Report r = RecordVerifier.verify(rec);
    assertThat(r.passed()).as(r.text()).isFalse();
    assertThat(r.checks().stream().filter(c -> !c.ok()).map(RecordVerifier.Check::what)).as(r.text()).anyMatch(w -> w.contains(check));
  }

  @Test
  void rejectsAnEditedScore(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    assertThat(RecordVerifier.verify(rec).passed()).isTrue();
    editEval(rec.resolve("verification/eval.json"), j -> j.put("pass_at_1", 0.9));
    assertFails(rec, "verification: pass@1 recomputed");
  }

  @Test
  void rejectsAnEditedIntervalOrRecordScore(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    editEval(rec.resolve("eval.json"), j -> ((ObjectNode) j.get("ci95_bootstrap")).put("lo", 0.99));
    assertFails(rec, "main: bootstrap CI recomputed");
    Path rec2 = goldenCopy(tmp.resolve("2"));
    ObjectNode r = (ObjectNode) SyntheticRun.JSON.readTree(rec2.resolve("record.json").toFile());
    r.put("score", 0.95);
    Files.writeString(rec2.resolve("record.json"), r.toString());
    assertFails(rec2, "record.json score");
  }

  @Test
  void rejectsAFlippedLevelResult(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    editEval(rec.resolve("eval.json"), j -> {
      for (JsonNode l : j.get("levels")) {
        if (!l.get("solved").asBoolean()) {
          ((ObjectNode) l).put("solved", true);
          break;
        }
      }
    });
    assertFails(rec, "main: pass@1 recomputed");
  }

  @Test
  void rejectsAMissingLevel(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    editEval(rec.resolve("eval.json"), j -> {
      ((ArrayNode) j.get("levels")).remove(17);
      j.put("n_levels", 999);
      double[] v = new double[999];
      int k = 0;
      for (JsonNode l : j.get("levels")) v[k++] = l.get("solved").asBoolean() ? 1 : 0;
      j.put("pass_at_1", Intervals.mean(v)); // a consistent forgery of the figures...
      ((ObjectNode) j.get("ci95_bootstrap")).put("lo", Intervals.bootstrap(v).lo()).put("hi", Intervals.bootstrap(v).hi());
    });
    assertFails(rec, "main: every test level scored exactly once"); // ...still misses a level
  }

  @Test
  void rejectsADuplicatedLevelInPlaceOfAnother(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    editEval(rec.resolve("eval.json"), j -> {
      ArrayNode a = (ArrayNode) j.get("levels");
      a.set(5, a.get(6).deepCopy());
    });
    assertFails(rec, "main: every test level scored exactly once");
  }

  @Test
  void rejectsAChangedRecipe(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    ObjectNode r = (ObjectNode) SyntheticRun.JSON.readTree(rec.resolve("recipe.json").toFile());
    r.put("learningRate", 0.002);
    Files.writeString(rec.resolve("recipe.json"), r.toString());
    assertFails(rec, "main: log recipe equals recipe.json");
    assertFails(rec, "verification: log recipe equals recipe.json");
  }

  @Test
  void rejectsAChangedSourceSnapshot(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    Path f = rec.resolve("source/src/main/java/dev/speedrun/rl/Recipe.java");
    Files.writeString(f, Files.readString(f).replace("int numEnvs", "int numEnvs, int extra"));
    assertFails(rec, "source snapshot matches SHA256SUMS");
  }

  @Test
  void rejectsAScoreUnderTheBar(@TempDir Path tmp) throws Exception {
    // 720 of 1000 solved: pass@1 0.72 but the lower CI is about 0.692 < 0.70.
    Path rec = completeRecord(tmp, 800, 720);
    assertThat(Intervals.bootstrap(flags(720)).lo()).isCloseTo(0.692, within(0.005)).isLessThan(0.70);
    assertFails(rec, "bar: worse lower CI > 0.70");
    assertFails(rec, "verification: lower CI > 0.70");
    JsonNode j = SyntheticRun.JSON.readTree(rec.resolve("record.json").toFile());
    assertThat(j.get("clears_bar").asBoolean()).isFalse();
  }

  @Test
  void rejectsASwappedCheckpoint(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    Files.writeString(rec.resolve("policy.safetensors"), "other weights");
    assertFails(rec, "main: scored checkpoint is the one kept");
  }

  @Test
  void rescoringReplaysTheKeptCheckpoint(@TempDir Path tmp) throws Exception {
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path run = SyntheticRun.make(tmp.resolve("run"), 42, 0, 600);
    Path ck = run.resolve("checkpoints/it-000004/policy.safetensors");
    dev.speedrun.nn.Policies.save(ck, new dev.speedrun.nn.DefaultPolicy(new dev.speedrun.nn.DefaultPolicy.Config(16, 1, 5, 7)), java.util.Map.of());
    dev.speedrun.eval.Scoring.score(ck, "policy.safetensors", SyntheticRun.testSet(), dev.speedrun.eval.Evaluator.Options.greedy(2))
        .write(run.resolve("eval.json"));
    Path rec = Records.assemble(run, tmp.resolve("records"), src, "rescore", null, null);
    String check = "main: re-scoring the checkpoint gives the stored results";
    RecordVerifier.Report r = RecordVerifier.verify(rec, SyntheticRun.testSet());
    assertThat(r.checks()).filteredOn(c -> c.what().equals(check)).singleElement().satisfies(c -> assertThat(c.ok()).as(c.detail()).isTrue());
    // A level's steps edited: every figure still agrees, only re-scoring can tell.
    editEval(rec.resolve("eval.json"), j -> {
      ObjectNode l = (ObjectNode) j.get("levels").get(3);
      l.put("steps", l.get("steps").asInt() - 1);
    });
    RecordVerifier.Report again = RecordVerifier.verify(rec, SyntheticRun.testSet());
    assertThat(again.checks()).filteredOn(c -> c.what().equals(check)).singleElement()
        .satisfies(c -> assertThat(c.ok()).isFalse()).satisfies(c -> assertThat(c.detail()).contains("unfiltered/test/000.txt#3"));
    assertThat(again.checks()).filteredOn(c -> c.what().equals("main: pass@1 recomputed")).singleElement()
        .satisfies(c -> assertThat(c.ok()).isTrue());
  }

  @Test
  void recipesCompareAsNumbers() {
    assertThat(RunDir.sameRecipe(java.util.Map.of("a", "1.0E-8", "b", "0.001", "c", "adamw"),
        java.util.Map.of("a", "1e-08", "b", "0.0010", "c", "adamw"))).isTrue();
    assertThat(RunDir.recipeDifference(java.util.Map.of("a", "1"), java.util.Map.of("a", "2"))).isEqualTo("a = 1 vs 2");
    assertThat(RunDir.sameRecipe(java.util.Map.of("a", "1"), java.util.Map.of("a", "1", "b", "2"))).isFalse();
  }

  @Test
  void leaderboardListsVerifiedRecordsFastestFirst(@TempDir Path tmp) throws Exception {
    Path rec = goldenCopy(tmp);
    Path src = SyntheticRun.sourceRoot(tmp.resolve("repo"));
    Path bad = Records.assemble(SyntheticRun.make(tmp.resolve("r3"), 42, 800, 100), tmp.resolve("records"), src, "unverified", null, null);
    Path readme = tmp.resolve("README.md");
    Files.writeString(readme, "# X\n\n## Leaderboard\n\n<!-- leaderboard -->\nNo record yet.\n<!-- /leaderboard -->\n\ntail\n");
    Leaderboard.Result r = Leaderboard.update(tmp.resolve("records"), readme);
    assertThat(r.rows()).extracting(Leaderboard.Row::folder).containsExactly(rec.getFileName().toString());
    assertThat(r.excluded()).singleElement().asString().startsWith(bad.getFileName().toString());
    String text = Files.readString(readme);
    assertThat(text).contains("| 1 | 11:00 | a tiny synthetic record | 2026-12-02 | ")
        .contains("](records/" + rec.getFileName() + ")").endsWith("<!-- /leaderboard -->\n\ntail\n");
    assertThat(tmp.resolve("records/figures/records_over_time.png")).isRegularFile();
    assertThat(tmp.resolve("records/figures/training_curves.png")).isRegularFile();
    // Idempotent.
    Leaderboard.update(tmp.resolve("records"), readme);
    assertThat(Files.readString(readme)).isEqualTo(text);
  }
}
