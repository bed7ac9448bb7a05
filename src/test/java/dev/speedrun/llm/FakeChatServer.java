package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * An in-process OpenAI-compatible chat server for tests (127.0.0.1 only). The "model" reads the
 * board from the last user message (the test template sends just {{question}}) and answers sample
 * j correctly iff j < {@link #goodSamples}(board): the optimal solution in answer tags; otherwise
 * "no idea". Faults can be scripted per request number.
 */
public final class FakeChatServer implements AutoCloseable {
  enum Fault { NONE, HTTP500, HTTP429, MALFORMED, TRUNCATED, SLOW, HTTP400 }

  final HttpServer server;
  private final ExecutorService pool = Executors.newFixedThreadPool(8);
  public final AtomicInteger requests = new AtomicInteger();
  final Map<String, AtomicInteger> okPerBoard = new ConcurrentHashMap<>();
  final List<Long> seeds = new CopyOnWriteArrayList<>();
  volatile boolean supportsN = true;
  volatile IntFunction<Fault> faults = i -> Fault.NONE;
  /** Boards that always get HTTP 500. */
  final java.util.Set<String> broken = ConcurrentHashMap.newKeySet();
  volatile int slowMillis = 30_000; // far past any client timeout; close() interrupts it

  public FakeChatServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(pool);
    server.createContext("/v1/chat/completions", this::handle);
    server.start();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** How many of k samples the fake model gets right on a board: sha256 byte mod (k + 1). */
  public static int goodSamples(String question, int k) {
    return Integer.parseInt(Level.sha256Hex(question).substring(0, 2), 16) % (k + 1);
  }

  private void handle(HttpExchange ex) throws IOException {
    int no = requests.incrementAndGet();
    try (ex) {
      JsonNode req = Datasets.JSON.readTree(ex.getRequestBody().readAllBytes());
      JsonNode msgs = req.get("messages");
      String question = msgs.get(msgs.size() - 1).get("content").asText();
      int n = req.get("n").asInt();
      Fault f = faults.apply(no);
      if (broken.contains(question)) f = Fault.HTTP500;
      if (n > 1 && !supportsN) f = Fault.HTTP400;
      switch (f) {
        case HTTP500 -> { send(ex, 500, "{\"error\": \"internal\"}"); return; }
        case HTTP429 -> { send(ex, 429, "{\"error\": \"rate limited\"}"); return; }
        case HTTP400 -> { send(ex, 400, "{\"error\": {\"message\": \"n must be 1\"}}"); return; }
        case MALFORMED -> { send(ex, 200, "{\"choices\": [{\"message\": "); return; }
        case TRUNCATED -> {
          byte[] b = answer(question, n, req).getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, b.length);
          OutputStream os = ex.getResponseBody();
          os.write(b, 0, b.length / 2);
          os.flush();
          ex.getHttpContext(); // then close with bytes missing
          throw new IOException("truncated on purpose");
        }
        case SLOW -> sleep(slowMillis);
        default -> {}
      }
      String body = answer(question, n, req);
      okPerBoard.computeIfAbsent(question, q -> new AtomicInteger()).incrementAndGet();
      send(ex, 200, body);
    }
  }

  private String answer(String question, int n, JsonNode req) {
    Level level = LlmBoard.parse(question, "fake");
    String sol = TinySolver.solve(level, 1_000_000).moves();
    long seed = req.has("seed") ? req.get("seed").asLong() : 0;
    seeds.add(seed);
    int k = 8;
    ObjectNode o = Datasets.JSON.createObjectNode();
    o.put("id", "x").put("object", "chat.completion");
    ArrayNode cs = o.putArray("choices");
    for (int i = 0; i < n; i++) {
      int j = n == 1 ? (int) (seed - 12345) : i;
      String text = j < goodSamples(question, k) ? "<think>easy</think><answer>" + sol + "</answer>" : "no idea";
      cs.addObject().put("index", i).put("finish_reason", "stop")
          .putObject("message").put("role", "assistant").put("content", text);
    }
    return o.toString();
  }

  private static void send(HttpExchange ex, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, b.length);
    ex.getResponseBody().write(b);
  }

  private static void sleep(int ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
