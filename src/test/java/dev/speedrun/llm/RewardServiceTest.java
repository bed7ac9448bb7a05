package dev.speedrun.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RewardServiceTest {
  static final List<Puzzle> PUZZLES = Datasets.read(SharedData.llmEval());
  static RewardService svc;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    svc = new RewardService("127.0.0.1", 0, PUZZLES,
        new RewardService.Limits(64 * 1024, 16, 8, 50, 10, 20), 4);
  }

  @AfterAll
  static void stop() {
    svc.close();
  }

  record Resp(int status, JsonNode body) {}

  static Resp call(String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + svc.port() + path));
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    return new Resp(r.statusCode(), Datasets.JSON.readTree(r.body()));
  }

  static String json(Object o) throws Exception {
    return Datasets.JSON.writeValueAsString(o);
  }

  @Test
  void scoresByIndexAndByBoard() throws Exception {
    Puzzle p = PUZZLES.get(0);
    Resp r = call("POST", "/score", json(java.util.Map.of("index", 0,
        "completions", List.of("<answer>" + p.answer() + "</answer>", "#### DL", "nothing"))));
    assertThat(r.status()).isEqualTo(200);
    JsonNode res = r.body().get("results");
    assertThat(res.get(0).get("reward").asDouble()).isEqualTo(1.0);
    assertThat(res.get(0).get("moves").asText()).isEqualTo(p.answer());
    assertThat(res.get(0).get("final_board").asText())
        .isEqualTo(LlmBoard.question(Reward.score(p.level(), "####" + p.answer()).finalBoard()));
    assertThat(res.get(1).get("moves").asText()).isEqualTo("DL");
    assertThat(res.get(2).get("answered").asBoolean()).isFalse();
    assertThat(r.body().get("mean_reward").asDouble()).isEqualTo(1.0 / 3);
    Resp byBoard = call("POST", "/score", json(java.util.Map.of("board", p.metadata().gamestr(),
        "completion", "<answer>" + p.answer() + "</answer>")));
    assertThat(byBoard.body().get("results").get(0).get("reward").asDouble()).isEqualTo(1.0);
  }

  @Test
  void batchAnswersEachRequestOrItsError() throws Exception {
    Resp r = call("POST", "/score/batch", "{\"requests\": [{\"index\": 1, \"completion\": \"<answer>" + PUZZLES.get(1).answer()
        + "</answer>\"}, {\"index\": 999, \"completion\": \"x\"}, {\"board\": \"+ + +\", \"completion\": \"x\"}]}");
    assertThat(r.status()).isEqualTo(200);
    JsonNode rs = r.body().get("responses");
    assertThat(rs.get(0).get("mean_reward").asDouble()).isEqualTo(1.0);
    assertThat(rs.get(1).get("error").asText()).contains("index 999 is not a dataset row (0..255)");
    assertThat(rs.get(2).get("error").asText()).contains("requests[2]: board");
  }

  @Test
  void badRequestsGetClear4xxJson() throws Exception {
    assertThat(call("POST", "/score", "{not json").status()).isEqualTo(400);
    assertThat(call("POST", "/score", "{\"index\": 0}").body().get("error").asText()).contains("missing \"completions\"");
    assertThat(call("POST", "/score", "{\"completion\": \"x\"}").body().get("error").asText()).contains("missing \"index\"");
    assertThat(call("POST", "/score", "{\"index\": 0, \"board\": \"x\", \"completion\": \"x\"}").status()).isEqualTo(400);
    assertThat(call("POST", "/score", "{\"index\": -1, \"completion\": \"x\"}").status()).isEqualTo(404);
    assertThat(call("GET", "/score", null).status()).isEqualTo(405);
    assertThat(call("GET", "/nope", null).status()).isEqualTo(404);
    Resp big = call("POST", "/score", "{\"index\": 0, \"completion\": \"" + "x".repeat(70_000) + "\"}");
    assertThat(big.status()).isEqualTo(413);
    assertThat(big.body().get("error").asText()).isEqualTo("request body over 65536 bytes");
    List<String> many = java.util.Collections.nCopies(17, "x");
    assertThat(call("POST", "/score", json(java.util.Map.of("index", 0, "completions", many))).status()).isEqualTo(413);
    assertThat(call("GET", "/health", null).body().get("status").asText()).isEqualTo("ok");
    assertThat(call("GET", "/puzzles/3", null).body().get("question").asText()).isEqualTo(PUZZLES.get(3).question());
  }

  @Test
  void multiTurnEpisode() throws Exception {
    // First benchmark puzzle: gold DLLRRDLL. Turn 1 plays D L L R with M = 4 (a fifth is ignored).
    Resp open = call("POST", "/episodes", "{\"index\": 0, \"max_actions\": 4, \"max_turns\": 3}");
    assertThat(open.status()).isEqualTo(200);
    String id = open.body().get("episode").asText();
    assertThat(open.body().get("board").asText()).isEqualTo(PUZZLES.get(0).question());
    Resp t1 = call("POST", "/episodes/" + id + "/step", "{\"actions\": \"Down || Left || Left || Right || Right\"}");
    assertThat(t1.body().get("ignored_actions").asInt()).isEqualTo(1);
    // D walks, L pushes, L pushes the box onto a goal (+1), R walks.
    assertThat(t1.body().get("reward").asDouble()).isCloseTo(-0.4 + 1, org.assertj.core.api.Assertions.within(1e-9));
    Resp t2 = call("POST", "/episodes/" + id + "/step", "{\"actions\": \"Right || Down || Left || Left\"}");
    assertThat(t2.body().get("solved").asBoolean()).isTrue();
    assertThat(t2.body().get("done").asBoolean()).isTrue();
    assertThat(t2.body().get("rewards").get(3).asDouble()).isCloseTo(-0.1 + 1 + 10, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(call("POST", "/episodes/" + id + "/step", "{\"actions\": \"Up\"}").status()).isEqualTo(409);
    assertThat(call("GET", "/episodes/" + id, null).body().get("turn").asInt()).isEqualTo(2);
    assertThat(call("DELETE", "/episodes/" + id, null).status()).isEqualTo(200);
    assertThat(call("GET", "/episodes/" + id, null).status()).isEqualTo(404);
    assertThat(call("POST", "/episodes", "{\"index\": 0, \"max_turns\": 0}").status()).isEqualTo(400);
    assertThat(call("POST", "/episodes/" + id + "/step", "{}").status()).isEqualTo(404);
  }

  @Test
  void openEpisodesAreBounded() throws Exception {
    // The test service allows 50 open episodes; closing them frees room.
    List<String> ids = new ArrayList<>();
    int status = 200;
    while (status == 200 && ids.size() < 60) {
      Resp r = call("POST", "/episodes", "{\"index\": 1}");
      status = r.status();
      if (status == 200) ids.add(r.body().get("episode").asText());
      else assertThat(r.body().get("error").asText()).contains("too many open episodes (50)");
    }
    assertThat(status).isEqualTo(429);
    assertThat(ids.size()).isLessThanOrEqualTo(50);
    for (String id : ids) assertThat(call("DELETE", "/episodes/" + id, null).status()).isEqualTo(200);
    assertThat(call("POST", "/episodes", "{\"index\": 1}").status()).isEqualTo(200);
  }

  @Test
  void staysUpUnderConcurrentLoad() throws Exception {
    // A bounded loop: 8 client threads x 40 requests to 127.0.0.1, mixing good and bad requests.
    ExecutorService clients = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        fs.add(clients.submit(() -> {
          int ok = 0;
          for (int i = 0; i < 40; i++) {
            int idx = (seed * 40 + i) % 256;
            if (i % 5 == 4) {
              if (call("POST", "/score", "{broken").status() == 400) ok++;
              continue;
            }
            Resp r = call("POST", "/score", json(java.util.Map.of("index", idx,
                "completions", List.of("<answer>" + PUZZLES.get(idx).answer() + "</answer>", "x"))));
            if (r.status() == 200 && r.body().get("mean_reward").asDouble() == 0.5) ok++;
          }
          return ok;
        }));
      }
      for (Future<Integer> f : fs) assertThat(f.get()).isEqualTo(40);
    } finally {
      clients.shutdownNow();
    }
    assertThat(call("GET", "/health", null).status()).isEqualTo(200);
  }
}
