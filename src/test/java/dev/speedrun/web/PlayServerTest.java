package dev.speedrun.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The play server over real HTTP on an ephemeral loopback port: endpoints, and every kind of refusal. */
class PlayServerTest {
  /** unfiltered/valid/000.txt#3 and a solution found by an independent breadth-first search (Python). */
  static final String LEVEL_3 = "unfiltered/valid/000.txt#3";
  static final String SOLUTION_3 = "ULUDDDDDRRULDLUURRRURUL";

  @TempDir static Path root;
  static Path outside;
  static PlayServer server;
  static final HttpClient http = HttpClient.newHttpClient();
  static final ObjectMapper json = new ObjectMapper();
  static int solverCalls;

  @BeforeAll
  static void start() throws Exception {
    Files.createDirectories(root.resolve("runs/run1"));
    Files.createDirectories(root.resolve("records/2026-12-02"));
    Files.writeString(root.resolve("runs/run1/step-100.safetensors"), "fake");
    Files.writeString(root.resolve("records/2026-12-02/final.safetensors"), "fake");
    Files.writeString(root.resolve("runs/run1/notes.txt"), "not a checkpoint");
    Files.createDirectories(root.resolve("runs/run1/checkpoints/.tmp-it-000200"));
    Files.writeString(root.resolve("runs/run1/checkpoints/.tmp-it-000200/policy.safetensors"), "half written");
    outside = Files.createTempFile("outside", ".safetensors");
    Files.createSymbolicLink(root.resolve("runs/run1/escape.safetensors"), outside);
    Files.writeString(root.resolve("secret.safetensors"), "outside the allowed folders");
    int[] script = SOLUTION_3.chars().map(c -> Direction.ofLetter((char) c).action()).toArray();
    PlayServer.PolicyLoader loader = p -> {
      if (p.getFileName().toString().equals("final.safetensors")) throw new IllegalStateException("corrupt header");
      return new ScriptedNet(script);
    };
    Level l3 = level3();
    PlayServer.Solver solver = level -> {
      solverCalls++;
      return level.equals(l3) ? Optional.of(SOLUTION_3) : Optional.empty();
    };
    server = PlayServer.start(new PlayServer.Options("127.0.0.1", 0, new LevelLibrary(TestTools.boxoban()), root, loader, solver, null));
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    Files.deleteIfExists(root.resolve("runs/run1/escape.safetensors"));
    Files.deleteIfExists(outside);
  }

  static Level level3() throws Exception {
    Path f = TestTools.boxoban().resolve("unfiltered/valid/000.txt");
    return Formats.parseBoxoban(Files.readString(f), f.toString()).get(3).level();
  }

  static HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + path.substring(1))).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode ok(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    return json.readTree(r.body());
  }

  /** Asserts a refusal: the status and a JSON reason containing {@code reason}. */
  static void refused(HttpResponse<String> r, int status, String reason) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(json.readTree(r.body()).path("error").asText()).contains(reason);
  }

  static String body(Object... kv) throws Exception {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return json.writeValueAsString(m);
  }

  /** Sends raw bytes and returns the status line. */
  static String raw(String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1 && b != '\n') buf.write(b);
      return buf.toString(StandardCharsets.ISO_8859_1).trim();
    }
  }

  @Test
  void bindsToLoopbackAndServesThePage() throws Exception {
    assertThat(server.url()).startsWith("http://127.0.0.1:");
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("<svg id=\"board\"").contains("/app.js");
    assertThat(r.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v).contains("default-src 'self'"));
    for (String asset : List.of("/app.js", "/sokoban.js", "/style.css", "/favicon.svg")) {
      assertThat(get(asset).statusCode()).as(asset).isEqualTo(200);
    }
  }

  @Test
  void levelsComeFromTheFolderAsTheBoxobanReaderReadsThem() throws Exception {
    JsonNode r = ok(get("/api/level?split=unfiltered/valid&file=0&index=3"));
    assertThat(r.path("address").asText()).isEqualTo(LEVEL_3);
    // Reference: the raw rows of the file, read here without the server's code.
    List<String> lines = Files.readAllLines(TestTools.boxoban().resolve("unfiltered/valid/000.txt"));
    int header = lines.indexOf("; 3");
    String rows = String.join("\n", lines.subList(header + 1, header + 11));
    assertThat(r.path("level").asText()).isEqualTo(rows);
    assertThat(r.path("sha256").asText()).isEqualTo(Level.sha256Hex(rows));

    JsonNode info = ok(get("/api/info"));
    assertThat(info.path("splits").findValuesAsText("name")).contains("unfiltered/train", "unfiltered/valid", "hard");
    assertThat(info.path("watch").asBoolean()).isTrue();
    assertThat(info.path("solver").asBoolean()).isTrue();

    JsonNode a = ok(get("/api/random?source=unfiltered/valid&seed=5"));
    JsonNode b = ok(get("/api/random?source=unfiltered/valid&seed=5"));
    assertThat(a.path("address").asText()).matches("unfiltered/valid/\\d{3}\\.txt#\\d+").isEqualTo(b.path("address").asText());
  }

  @Test
  void levelNamesCannotEscapeTheLevelsFolder() throws Exception {
    refused(get("/api/level?split=../../etc&file=0&index=0"), 400, "unknown split");
    refused(get("/api/level?split=unfiltered/valid/../../..&file=0&index=0"), 400, "unknown split");
    refused(get("/api/level?split=%2Fetc%2Fpasswd&file=0&index=0"), 400, "unknown split");
    refused(get("/api/level?split=unfiltered/valid&file=../../x&index=0"), 400, "whole number");
    refused(get("/api/level?split=unfiltered/valid&file=-1&index=0"), 400, "outside 0..999");
    refused(get("/api/level?split=unfiltered/valid&file=0"), 400, "no 'index'");
    refused(get("/api/level?split=unfiltered/valid&file=500&index=0"), 404, "not in the levels folder");
    refused(get("/api/level?split=unfiltered/valid&file=0&index=5000"), 404, "levels 0..999");
    refused(get("/api/random?source=..%2F..&seed=1"), 400, "unknown split");
    refused(get("/api/random?source=generated:boxoban&seed=1"), 404, "no level generator");
    assertThat(raw("GET /api/level?split=%zz&file=0&index=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")).contains(" 400");
  }

  @Test
  void pastedBoardsInBothLegends() throws Exception {
    JsonNode xsb = ok(post("/api/parse", body("text", "#####\n#@$.#\n#####", "format", "xsb")));
    assertThat(xsb.path("level").asText()).isEqualTo("#####\n#@$.#\n#####");
    JsonNode llm1 = ok(post("/api/parse", body("text", "+ + + + +\n+ * @ X +\n+ - $ - +\n+ + + + +", "format", "auto")));
    assertThat(llm1.path("level").asText()).isEqualTo("#####\n#@$.#\n# * #\n#####");
  }

  @Test
  void badBoardsAreRefusedWithTheReason() throws Exception {
    refused(post("/api/parse", body("text", "+ + + + +\n+ * @ X +\n+ % $ - +\n+ + + + +", "format", "llm")), 400, "2 players");
    refused(post("/api/parse", body("text", "@$", "format", "auto")), 400, "cannot tell whether");
    refused(post("/api/parse", body("text", "#####\n#@$?#\n#####", "format", "xsb")), 400, "column 4: unknown character '?'");
    refused(post("/api/parse", body("text", "+ + +\n+ * @ X", "format", "llm")), 400, "line 2: row has 4 cells, expected 3");
    refused(post("/api/parse", body("text", "", "format", "xsb")), 400, "empty");
    refused(post("/api/parse", body("text", "#@$.#", "format", "sokoban")), 400, "unknown board format");
    refused(post("/api/parse", body("format", "xsb")), 400, "no 'text'");
    refused(post("/api/parse", body("text", 42)), 400, "must be a string");
  }

  @Test
  void replaysAreCheckedAndPlayedByTheEngine() throws Exception {
    String level = level3().toXsb();
    JsonNode r = ok(post("/api/replay", body("level", level, "actions", SOLUTION_3, "player", "ada")));
    Game reference = new Game(level3()).play(SOLUTION_3);
    assertThat(reference.isSolved()).isTrue();
    assertThat(r.path("solved").asBoolean()).isTrue();
    assertThat(r.path("applied").asInt()).isEqualTo(SOLUTION_3.length());
    assertThat(r.path("moves").asInt()).isEqualTo(reference.moves());
    assertThat(r.path("pushes").asInt()).isEqualTo(reference.pushes());
    assertThat(r.path("replay").path("player").asText()).isEqualTo("ada");
    assertThat(json.readTree(r.path("replay").toString()).properties()).hasSize(3);

    // Moves after the solve are ignored; a replay without a player is "unknown"; extra keys are ignored.
    JsonNode more = ok(post("/api/replay", body("level", level, "actions", SOLUTION_3 + "LLLL", "extra", 1)));
    assertThat(more.path("applied").asInt()).isEqualTo(SOLUTION_3.length());
    assertThat(more.path("replay").path("player").asText()).isEqualTo("unknown");
    JsonNode half = ok(post("/api/replay", body("level", level, "actions", SOLUTION_3.substring(0, 10))));
    assertThat(half.path("solved").asBoolean()).isFalse();

    refused(post("/api/replay", body("level", level, "actions", "UDx")), 400, "character 3 is 'x'");
    refused(post("/api/replay", body("actions", "UD")), 400, "no 'level'");
    refused(post("/api/replay", body("level", "#@#", "actions", "U")), 400, "no boxes");
    refused(post("/api/replay", body("level", level, "actions", "U", "player", "a\u0007b")), 400, "control character");
    refused(post("/api/replay", "[1,2]"), 400, "JSON object");
  }

  @Test
  void checkpointsAreOnlyThoseUnderRunsAndRecords() throws Exception {
    JsonNode c = ok(get("/api/checkpoints"));
    assertThat(c.path("checkpoints").findValuesAsText("x")).isEmpty();
    List<String> names = new java.util.ArrayList<>();
    c.path("checkpoints").forEach(n -> names.add(n.asText()));
    assertThat(names).containsExactly("records/2026-12-02/final.safetensors", "runs/run1/step-100.safetensors");

    String level = level3().toXsb();
    for (String bad : List.of("secret.safetensors", "runs/../secret.safetensors", "runs/run1/escape.safetensors",
        outside.toString(), "runs/run1/notes.txt", "runs/run1/../../../etc/passwd", "runs/run1/checkpoints/.tmp-it-000200/policy.safetensors", "")) {
      refused(post("/api/watch", body("checkpoint", bad, "level", level)), 400, bad.isEmpty() ? "no checkpoint" : "is not a checkpoint");
    }
    refused(post("/api/watch", body("checkpoint", "records/2026-12-02/final.safetensors", "level", level)), 422, "corrupt header");
  }

  @Test
  void watchRunsThePolicyGreedilyAndReportsItsProbabilitiesAndValues() throws Exception {
    JsonNode r = ok(post("/api/watch", body("checkpoint", "runs/run1/step-100.safetensors", "level", level3().toXsb())));
    assertThat(r.path("solved").asBoolean()).isTrue();
    assertThat(r.path("doneAt").asInt()).isEqualTo(SOLUTION_3.length());
    assertThat(r.path("actions").asText()).isEqualTo(SOLUTION_3);
    JsonNode steps = r.path("steps");
    assertThat(steps.size()).isEqualTo(SOLUTION_3.length());
    // Reference: softmax of logits (3, 0, 0, 0, 0) worked by hand; values = 0.25 x boxes on goals before the step.
    double chosen = Math.exp(3) / (Math.exp(3) + 4), other = 1 / (Math.exp(3) + 4);
    Game g = new Game(level3());
    for (int t = 0; t < steps.size(); t++) {
      JsonNode s = steps.get(t);
      int a = Direction.ofLetter(SOLUTION_3.charAt(t)).action();
      assertThat(s.path("action").asInt()).isEqualTo(a);
      for (int i = 0; i < 5; i++) {
        assertThat(s.path("probs").get(i).asDouble()).isCloseTo(i == a ? chosen : other, org.assertj.core.data.Offset.offset(1e-6));
      }
      assertThat(s.path("value").asDouble()).isEqualTo(0.25 * g.toLevel().boxesOnGoals());
      g.move(Direction.ofLetter(SOLUTION_3.charAt(t)));
    }
    // Once the script runs out the fake plays noop until the 120-step end.
    JsonNode unsolved = ok(post("/api/watch", body("checkpoint", "runs/run1/step-100.safetensors",
        "level", "##########\n#.@$     #\n##########")));
    assertThat(unsolved.path("steps").size()).isEqualTo(120);
    assertThat(unsolved.path("solved").asBoolean()).isFalse();
    refused(post("/api/watch", body("checkpoint", "runs/run1/step-100.safetensors", "level", "############\n#@$.       #\n############")), 400, "up to 10x10");
  }

  @Test
  void solverEndpoint() throws Exception {
    assertThat(ok(post("/api/solve", body("level", level3().toXsb()))).path("actions").asText()).isEqualTo(SOLUTION_3);
    refused(post("/api/solve", body("level", "#####\n#@$.#\n#####")), 422, "no solution");
  }

  @Test
  void malformedAndOversizedRequestsGet4xxAndTheServerKeepsServing() throws Exception {
    refused(post("/api/replay", "{\"level\": "), 400, "not valid JSON");
    refused(post("/api/replay", ""), 400, "empty");
    refused(post("/api/replay", "[".repeat(5000)), 400, "not valid JSON");
    refused(post("/api/replay", "{\"level\": \"#@$.#\", \"actions\": \"R\"}  trailing"), 400, "not valid JSON");
    refused(post("/api/parse", "{\"text\": \"" + "#".repeat(PlayServer.MAX_BODY) + "\"}"), 413, "more than " + PlayServer.MAX_BODY);
    refused(post("/api/parse", body("text", "#".repeat(BoardText.MAX_CHARS + 1), "format", "xsb")), 400, "more than " + BoardText.MAX_CHARS);
    refused(http.send(HttpRequest.newBuilder(URI.create(server.url() + "api/parse")).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString()), 415, "must be JSON");
    refused(get("/api/parse"), 405, "use POST");
    refused(post("/api/level", "{}"), 405, "use GET");
    refused(get("/../../etc/passwd"), 404, "no such page");
    refused(get("/api/nothing"), 404, "no such page");
    refused(get("/api/level?split=" + "a".repeat(PlayServer.MAX_URI)), 414, "longer than");
    assertThat(raw("GET /api/info HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n")).contains(" 403");
    assertThat(raw("GET /api/info HTTP/1.1\r\nHost: localhost:" + server.port() + "\r\nConnection: close\r\n\r\n")).contains(" 200");
    assertThat(raw("POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n{}")).contains(" 413");
    assertThat(raw("POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]")).contains(" 400");
    raw("GARBAGE\r\n\r\n"); // not HTTP at all: whatever the answer, the server must survive it
    // Still serving:
    for (int i = 0; i < 3; i++) assertThat(ok(get("/api/info")).path("levels").asBoolean()).isTrue();
  }

  @Test
  void mangledRequestsNeverMakeA500() throws Exception {
    // Valid requests, mangled by random deletions, insertions and duplications (300, seeded).
    String level = level3().toXsb();
    List<String[]> valid = List.of(
        new String[] {"POST", "/api/parse", body("text", "+ + + + +\n+ * @ X +\n+ + + + +", "format", "llm")},
        new String[] {"POST", "/api/replay", body("level", level, "actions", SOLUTION_3, "player", "p")},
        new String[] {"POST", "/api/watch", body("checkpoint", "runs/run1/step-100.safetensors", "level", level)},
        new String[] {"POST", "/api/solve", body("level", level)},
        new String[] {"GET", "/api/level?split=unfiltered/valid&file=0&index=3", null},
        new String[] {"GET", "/api/random?source=unfiltered/valid&seed=3", null});
    java.util.SplittableRandom rng = new java.util.SplittableRandom(99);
    String noise = "{}[]\",:\\%&=/.#@$+*-XUDLR0123456789 \n\u00e9";
    int served = 0;
    for (int i = 0; i < 300; i++) {
      String[] v = valid.get(rng.nextInt(valid.size()));
      boolean get = v[0].equals("GET");
      StringBuilder m = new StringBuilder(get ? v[1].substring(v[1].indexOf('?') + 1) : v[2]);
      for (int k = 1 + rng.nextInt(4); k > 0; k--) {
        int at = rng.nextInt(m.length() + 1);
        switch (rng.nextInt(3)) {
          case 0 -> { if (at < m.length()) m.deleteCharAt(at); }
          case 1 -> m.insert(at, noise.charAt(rng.nextInt(noise.length())));
          default -> m.insert(at, m.substring(at, Math.min(m.length(), at + rng.nextInt(20))));
        }
      }
      HttpResponse<String> r;
      if (get) {
        String q = java.net.URLEncoder.encode(m.toString(), StandardCharsets.UTF_8).replace("%3D", "=").replace("%26", "&");
        r = get(v[1].substring(0, v[1].indexOf('?') + 1) + q);
      } else {
        r = post(v[1], m.toString());
      }
      assertThat(r.statusCode()).as("%s %s with %s -> %s", v[0], v[1], m, r.body()).isBetween(200, 499);
      if (r.statusCode() >= 400) assertThat(json.readTree(r.body()).path("error").asText()).isNotBlank();
      served++;
    }
    assertThat(served).isEqualTo(300);
    assertThat(ok(get("/api/info")).path("levels").asBoolean()).isTrue();
  }
}
