package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.eval.Intervals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LlmEvalTest {
  @TempDir Path tmp;
  static final List<Puzzle> PUZZLES = Datasets.read(SharedData.llmEval()).subList(0, 24);
  static final Prompt QUESTION_ONLY = Prompt.parse(
      "{\"messages\": [{\"role\": \"system\", \"content\": \"solve\"}, {\"role\": \"user\", \"content\": \"{{question}}\"}]}", "test");

  // The timeout must outlast a real answer on a loaded machine (a training run beside the tests
  // once made 700 ms too short); only the SLOW fault, which sleeps far longer, should hit it.
  static ChatClient client(FakeChatServer s, int retries) {
    return new ChatClient(s.endpoint(), new ChatClient.Options("fake", 0.8, 0.95, 12288,
        Duration.ofSeconds(4), retries, Duration.ofMillis(1), Duration.ofMillis(5), null));
  }

  static LlmEval.Settings settings(int k, LlmEval.NMode mode) {
    return new LlmEval.Settings(k, 0.8, 0.95, 12288, 12345, 4, mode);
  }

  /** The expected figures, computed from the fake model's rule rather than by scoring. */
  static double[] expectedPerPuzzle(int k) {
    double[] per = new double[PUZZLES.size()];
    for (int i = 0; i < per.length; i++) per[i] = (double) Math.min(k, FakeChatServer.goodSamples(PUZZLES.get(i).question(), 8)) / k;
    return per;
  }

  @Test
  void nModeSurvivesServerFaultsAndMatchesTheExpectedFigures() throws Exception {
    try (FakeChatServer s = new FakeChatServer()) {
      s.faults = no -> switch (no) {
        case 2 -> FakeChatServer.Fault.HTTP500;
        case 4 -> FakeChatServer.Fault.HTTP429;
        case 6 -> FakeChatServer.Fault.MALFORMED;
        case 8 -> FakeChatServer.Fault.TRUNCATED;
        case 10 -> FakeChatServer.Fault.SLOW;
        default -> FakeChatServer.Fault.NONE;
      };
      // Faults go by the server's request count, not by board, so with 4 requests in flight one
      // board can draw several of them (CI once saw a board draw four, the last the SLOW one, and
      // fail with 3 retries). Five retries outlast all five faults landing on one board.
      ChatClient c = client(s, 5);
      LlmEval.Report r = LlmEval.run(PUZZLES, QUESTION_ONLY, c, settings(8, LlmEval.NMode.AUTO), tmp.resolve("p.jsonl"), null);
      assertThat(r.mode()).isEqualTo(LlmEval.NMode.N);
      double[] per = expectedPerPuzzle(8);
      assertThat(r.stats().pass1()).isEqualTo(Intervals.mean(per));
      Intervals.Interval ci = Intervals.bootstrap(per);
      assertThat(r.stats().lo()).isEqualTo(ci.lo());
      assertThat(r.stats().hi()).isEqualTo(ci.hi());
      assertThat(r.stats().interval()).isEqualTo("bootstrap");
      long anyGood = java.util.Arrays.stream(per).filter(x -> x > 0).count();
      assertThat(r.stats().passK()).isEqualTo((double) anyGood / per.length);
      // Wrong samples say "no idea": no answer. So answer rate = pass@1 here.
      assertThat(r.stats().answerRate()).isEqualTo(r.stats().pass1());
      assertThat(r.retries()).isEqualTo(5);
      assertThat(r.requests()).isEqualTo(24 + 5);
      // Every board answered once (faulty attempts do not count as answers).
      assertThat(s.okPerBoard).hasSize(24);
      assertThat(s.okPerBoard.values()).allMatch(a -> a.get() == 1);
      assertThat(s.seeds).allMatch(x -> x == 12345L);
      assertThat(r.puzzles()).extracting(LlmEval.PuzzleResult::index).containsExactlyElementsOf(
          java.util.stream.IntStream.range(0, 24).boxed().toList());
    }
  }

  @Test
  void serverWithoutNFallsBackToSeedsPlusI() throws Exception {
    try (FakeChatServer s = new FakeChatServer()) {
      s.supportsN = false;
      LlmEval.Report r = LlmEval.run(PUZZLES.subList(0, 6), QUESTION_ONLY, client(s, 2),
          settings(8, LlmEval.NMode.AUTO), tmp.resolve("p.jsonl"), null);
      assertThat(r.mode()).isEqualTo(LlmEval.NMode.SEEDS);
      assertThat(s.seeds).hasSize(6 * 8);
      assertThat(s.seeds.stream().sorted().toList().subList(0, 6)).containsOnly(12345L);
      assertThat(s.seeds).containsOnly(12345L, 12346L, 12347L, 12348L, 12349L, 12350L, 12351L, 12352L);
      double[] per = java.util.Arrays.copyOf(expectedPerPuzzle(8), 6);
      assertThat(r.stats().pass1()).isEqualTo(Intervals.mean(per));
    }
  }

  @Test
  void interruptedRunResumesWithoutAskingAgain() throws Exception {
    Path partial = tmp.resolve("p.jsonl");
    String badBoard = PUZZLES.get(5).question();
    try (FakeChatServer s = new FakeChatServer()) {
      s.broken.add(badBoard);
      assertThatThrownBy(() -> LlmEval.run(PUZZLES, QUESTION_ONLY, client(s, 2), settings(8, LlmEval.NMode.N), partial, null))
          .isInstanceOf(UserError.class).hasMessageContaining("failed 3 times; last: HTTP 500")
          .hasMessageContaining("run the same command again to resume");
    }
    long saved = Files.readAllLines(partial).size() - 1;
    assertThat(saved).isBetween(1L, 23L);
    // A crash mid-write leaves a torn last line: it is cut and that puzzle asked again.
    Files.writeString(partial, "{\"index\": 7, \"completions\": [\"<ans", java.nio.file.StandardOpenOption.APPEND);
    try (FakeChatServer s = new FakeChatServer()) {
      LlmEval.Report r = LlmEval.run(PUZZLES, QUESTION_ONLY, client(s, 2), settings(8, LlmEval.NMode.N), partial, null);
      assertThat(r.resumed()).isEqualTo((int) saved);
      assertThat(s.okPerBoard).hasSize((int) (24 - saved));
      assertThat(s.okPerBoard).containsKey(badBoard);
      assertThat(r.stats().pass1()).isEqualTo(Intervals.mean(expectedPerPuzzle(8)));
    }
    assertThat(Files.readAllLines(partial)).hasSize(25);
    assertThat(Files.readAllLines(partial).get(1)).contains("\"finish_reasons\":[\"stop\"");
    // Resuming a finished run asks nothing.
    try (FakeChatServer s = new FakeChatServer()) {
      LlmEval.Report r = LlmEval.run(PUZZLES, QUESTION_ONLY, client(s, 2), settings(8, LlmEval.NMode.N), partial, null);
      assertThat(s.requests.get()).isZero();
      assertThat(r.resumed()).isEqualTo(24);
    }
  }

  @Test
  void partialFileFromOtherSettingsIsRefused() throws Exception {
    Path partial = tmp.resolve("p.jsonl");
    try (FakeChatServer s = new FakeChatServer()) {
      LlmEval.run(PUZZLES.subList(0, 3), QUESTION_ONLY, client(s, 1), settings(8, LlmEval.NMode.N), partial, null);
      assertThatThrownBy(() -> LlmEval.run(PUZZLES.subList(0, 3), QUESTION_ONLY, client(s, 1),
          settings(4, LlmEval.NMode.N), partial, null))
          .isInstanceOf(UserError.class).hasMessageContaining("was made with other settings (k 8 vs 4)");
    }
  }

  @Test
  void kOneUsesWilsonAndAClientErrorFailsAtOnce() throws Exception {
    try (FakeChatServer s = new FakeChatServer()) {
      LlmEval.Report r = LlmEval.run(PUZZLES, QUESTION_ONLY, client(s, 1), settings(1, LlmEval.NMode.AUTO), tmp.resolve("a.jsonl"), null);
      int solved = 0;
      for (Puzzle p : PUZZLES) if (FakeChatServer.goodSamples(p.question(), 8) > 0) solved++;
      assertThat(r.stats().interval()).isEqualTo("wilson");
      assertThat(r.stats().lo()).isEqualTo(Intervals.wilson(solved, 24).lo());
      s.faults = no -> FakeChatServer.Fault.HTTP400;
      assertThatThrownBy(() -> LlmEval.run(PUZZLES, QUESTION_ONLY, client(s, 5), settings(1, LlmEval.NMode.N), tmp.resolve("b.jsonl"), null))
          .isInstanceOf(UserError.class).hasMessageContaining("answered HTTP 400");
      assertThat(s.requests.get()).isLessThanOrEqualTo(24 + 4);
    }
  }

  @Test
  void choicesParseStringOrPartsContentAndFinishReasons() {
    List<ChatClient.Choice> cs = ChatClient.parseChoices("""
        {"choices": [
          {"index": 1, "message": {"content": [{"type": "text", "text": "<answer>"}, {"type": "text", "text": "UD</answer>"}]}, "finish_reason": "stop"},
          {"index": 0, "message": {"content": "thinking...", "reasoning_content": "x"}, "finish_reason": "length"},
          {"index": 2, "message": {"content": null}}
        ]}""", 3);
    assertThat(cs).containsExactly(new ChatClient.Choice("thinking...", "length"),
        new ChatClient.Choice("<answer>UD</answer>", "stop"), new ChatClient.Choice("", null));
    LlmEval.PuzzleResult r = LlmEval.score(0, PUZZLES.get(0).level(), cs);
    assertThat(r.truncated()).isEqualTo(1);
    assertThat(r.answered()).isEqualTo(1);
    assertThatThrownBy(() -> ChatClient.parseChoices("{\"choices\": [{\"index\": 0}]}", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no message");
    assertThatThrownBy(() -> ChatClient.parseChoices("{\"choices\": [{\"index\": 0, \"message\": {\"content\": 5}}]}", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("neither a string");
  }

  @Test
  void endpointForms() {
    assertThat(ChatClient.completionsUri("http://h:8000").toString()).isEqualTo("http://h:8000/v1/chat/completions");
    assertThat(ChatClient.completionsUri("http://h:8000/v1/").toString()).isEqualTo("http://h:8000/v1/chat/completions");
    assertThat(ChatClient.completionsUri("https://h/x/v1/chat/completions").toString()).isEqualTo("https://h/x/v1/chat/completions");
    assertThatThrownBy(() -> ChatClient.completionsUri("h:8000")).isInstanceOf(UserError.class);
  }
}
