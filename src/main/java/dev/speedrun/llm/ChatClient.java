package dev.speedrun.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client of an OpenAI-compatible chat server ({@code POST /v1/chat/completions}: vLLM, SGLang,
 * llama.cpp's server, ...). Retries, with exponential backoff, on 429, 5xx, timeouts, broken
 * connections, truncated bodies and malformed JSON; any other 4xx is the caller's fault and fails
 * at once. Thread-safe.
 */
public final class ChatClient {
  /** Sampling and transport settings. {@code backoff} doubles per retry up to {@code maxBackoff}. */
  public record Options(String model, double temperature, double topP, int maxTokens,
      Duration timeout, int retries, Duration backoff, Duration maxBackoff, String apiKey) {}

  /** The server would not do what was asked (a 4xx other than 429); {@code status} is the code. */
  public static final class Rejected extends RuntimeException {
    public final int status;

    Rejected(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /** The server failed on every attempt (retries exhausted). */
  public static final class Failed extends RuntimeException {
    Failed(String message) {
      super(message);
    }
  }

  /** One choice: the message content and the server's finish reason ("stop", "length", ... or null). */
  public record Choice(String content, String finishReason) {}

  private final URI uri;
  private final Options o;
  private final HttpClient http;
  private final AtomicLong requests = new AtomicLong(), retried = new AtomicLong();

  public ChatClient(String endpoint, Options options) {
    this.uri = completionsUri(endpoint);
    this.o = options;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  /**
   * The chat-completions URL of an endpoint given as a base ({@code http://host:8000}), a
   * {@code /v1} base, or the full {@code .../chat/completions} URL.
   */
  public static URI completionsUri(String endpoint) {
    String e = endpoint.strip();
    while (e.endsWith("/")) e = e.substring(0, e.length() - 1);
    if (!e.endsWith("/chat/completions")) e = e.endsWith("/v1") ? e + "/chat/completions" : e + "/v1/chat/completions";
    try {
      URI u = URI.create(e);
      if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https")) || u.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL");
      }
      return u;
    } catch (IllegalArgumentException ex) {
      throw new UserError("--endpoint '" + endpoint + "' is not an http(s) URL");
    }
  }

  public URI uri() { return uri; }
  public String model() { return o.model(); }
  /** HTTP requests sent so far (attempts, including retries). */
  public long requests() { return requests.get(); }
  /** Attempts that failed and were retried. */
  public long retried() { return retried.get(); }

  /** Asks for {@code n} completions of {@code messages}; {@code seed} null leaves it out. */
  public List<Choice> complete(List<Prompt.Message> messages, int n, Long seed) throws InterruptedException {
    String body = requestBody(messages, n, seed);
    String lastError = "";
    for (int attempt = 0; ; attempt++) {
      if (attempt > o.retries()) {
        throw new Failed("server " + uri + " failed " + attempt + " times; last: " + lastError);
      }
      if (attempt > 0) {
        retried.incrementAndGet();
        long ms = Math.min(o.maxBackoff().toMillis(), o.backoff().toMillis() << Math.min(attempt - 1, 20));
        Thread.sleep(ms);
      }
      HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(o.timeout())
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body));
      if (o.apiKey() != null && !o.apiKey().isEmpty()) rb.header("Authorization", "Bearer " + o.apiKey());
      HttpResponse<String> resp;
      requests.incrementAndGet();
      try {
        resp = http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
      } catch (HttpTimeoutException e) {
        lastError = "timed out after " + o.timeout().toSeconds() + " s";
        continue;
      } catch (IOException e) {
        lastError = "connection failed (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
        continue;
      }
      int sc = resp.statusCode();
      if (sc == 408 || sc == 429 || sc >= 500) {
        lastError = "HTTP " + sc + " " + snippet(resp.body());
        continue;
      }
      if (sc != 200) throw new Rejected(sc, "server " + uri + " answered HTTP " + sc + ": " + snippet(resp.body()));
      try {
        return parseChoices(resp.body(), n);
      } catch (IllegalArgumentException e) {
        lastError = "malformed response (" + e.getMessage() + ")";
      }
    }
  }

  String requestBody(List<Prompt.Message> messages, int n, Long seed) {
    ObjectNode r = Datasets.JSON.createObjectNode();
    r.put("model", o.model());
    ArrayNode ms = r.putArray("messages");
    for (Prompt.Message m : messages) ms.addObject().put("role", m.role()).put("content", m.content());
    r.put("temperature", o.temperature());
    r.put("top_p", o.topP());
    r.put("max_tokens", o.maxTokens());
    r.put("n", n);
    if (seed != null) r.put("seed", seed);
    r.put("stream", false);
    return r.toString();
  }

  /** The message contents of the choices, in choice-index order. */
  static List<Choice> parseChoices(String body, int n) {
    JsonNode root;
    try {
      root = Datasets.JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
    }
    JsonNode choices = root == null ? null : root.get("choices");
    if (choices == null || !choices.isArray()) throw new IllegalArgumentException("no \"choices\" array");
    Choice[] out = new Choice[choices.size()];
    for (int i = 0; i < choices.size(); i++) {
      JsonNode c = choices.get(i);
      int idx = c.has("index") && c.get("index").isInt() ? c.get("index").asInt() : i;
      if (idx < 0 || idx >= out.length || out[idx] != null) throw new IllegalArgumentException("bad choice index " + idx);
      JsonNode msg = c.get("message");
      if (msg == null || !msg.isObject()) throw new IllegalArgumentException("choice " + i + " has no message");
      JsonNode fr = c.get("finish_reason");
      out[idx] = new Choice(contentText(msg.get("content")), fr == null || fr.isNull() ? null : fr.asText());
    }
    List<Choice> list = new ArrayList<>(List.of(out));
    if (list.size() > n) return list.subList(0, n);
    return list;
  }

  /** Message content as text: a string, or the concatenated "text" of a list of content parts. */
  static String contentText(JsonNode content) {
    if (content == null || content.isNull()) return "";
    if (content.isTextual()) return content.asText();
    if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      for (JsonNode part : content) {
        JsonNode t = part.get("text");
        if (t != null && t.isTextual()) sb.append(t.asText());
      }
      return sb.toString();
    }
    throw new IllegalArgumentException("message content is neither a string nor a list of parts");
  }

  private static String snippet(String s) {
    String t = s == null ? "" : s.strip().replaceAll("\\s+", " ");
    return t.length() > 200 ? t.substring(0, 200) + "..." : t;
  }
}
