package dev.speedrun.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reward as an HTTP+JSON service for external trainers (JDK HTTP server).
 *
 * <pre>
 * GET  /health                      {"status":"ok","puzzles":N}
 * GET  /puzzles/{i}                 a dataset row: index, question, answer-free
 * POST /score                       {"index":i | "board":"+ + ...", "completions":[...] | "completion":"..."}
 *                                   -> {"results":[{"reward","answered","moves","final_board"}],"mean_reward"}
 * POST /score/batch                 {"requests":[score requests]} -> {"responses":[score responses or {"error"}]}
 * POST /episodes                    {"index":i | "board":..., "max_actions":M, "max_turns":R} -> episode state
 * POST /episodes/{id}/step          {"actions":"Up || Left"} -> turn rewards, new board, done
 * GET  /episodes/{id}               episode state;   DELETE /episodes/{id} closes it
 * </pre>
 *
 * Bad requests get a 4xx with {@code {"error": "..."}}: 400 malformed, 404 unknown, 405 method,
 * 409 episode over, 413 body too large, 429 too many open episodes.
 */
public final class RewardService implements AutoCloseable {
  /** Limits on what one request may ask for. */
  public record Limits(int maxBodyBytes, int maxCompletions, int maxBatch, int maxEpisodes,
      int maxActionsCap, int maxTurnsCap) {
    public static final Limits DEFAULT = new Limits(4 << 20, 1024, 256, 10_000, 64, 1000);
  }

  public static final int DEFAULT_MAX_ACTIONS = 5, DEFAULT_MAX_TURNS = 5;

  private final List<Puzzle> puzzles;
  private final Limits limits;
  private final HttpServer server;
  private final ExecutorService pool;
  private final Map<String, Episode> episodes = new ConcurrentHashMap<>();
  private final AtomicLong nextEpisode = new AtomicLong(1);

  /** A 4xx answer. */
  static final class HttpError extends RuntimeException {
    final int status;

    HttpError(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /** Starts serving on {@code host:port} (port 0: any free port). {@code puzzles} may be empty. */
  public RewardService(String host, int port, List<Puzzle> puzzles, Limits limits, int threads) throws IOException {
    this.puzzles = List.copyOf(puzzles);
    this.limits = limits;
    this.server = HttpServer.create(new InetSocketAddress(host, port), 128);
    this.pool = Executors.newFixedThreadPool(threads);
    server.setExecutor(pool);
    server.createContext("/", this::handle);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }

  private void handle(HttpExchange ex) {
    try (ex) {
      int status = 200;
      JsonNode out;
      try {
        out = route(ex);
      } catch (HttpError e) {
        status = e.status;
        out = error(e.getMessage());
      } catch (UserError e) {
        status = 400;
        out = error(e.getMessage());
      } catch (RuntimeException e) {
        status = 500;
        out = error("internal error: " + e);
      }
      byte[] b = out.toString().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, b.length);
      ex.getResponseBody().write(b);
    } catch (IOException ignored) {
      // The client went away; nothing to answer.
    }
  }

  private static ObjectNode error(String message) {
    return Datasets.JSON.createObjectNode().put("error", message);
  }

  private JsonNode route(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getPath();
    String[] parts = path.replaceAll("^/+|/+$", "").split("/");
    if (path.equals("/health")) {
      requireMethod(method, "GET");
      return Datasets.JSON.createObjectNode().put("status", "ok").put("puzzles", puzzles.size())
          .put("open_episodes", episodes.size());
    }
    if (parts.length == 2 && parts[0].equals("puzzles")) {
      requireMethod(method, "GET");
      int i = parseIndex(parts[1]);
      Puzzle p = puzzle(i);
      return Datasets.JSON.createObjectNode().put("index", i).put("question", p.question())
          .put("width", p.level().width()).put("height", p.level().height());
    }
    if (path.equals("/score")) {
      requireMethod(method, "POST");
      return score(body(ex), "");
    }
    if (path.equals("/score/batch")) {
      requireMethod(method, "POST");
      JsonNode reqs = body(ex).get("requests");
      if (reqs == null || !reqs.isArray()) throw new HttpError(400, "expected {\"requests\": [...]}");
      if (reqs.size() > limits.maxBatch()) {
        throw new HttpError(413, "batch of " + reqs.size() + " requests; at most " + limits.maxBatch());
      }
      int total = 0;
      for (JsonNode r : reqs) total += r.has("completions") && r.get("completions").isArray() ? r.get("completions").size() : 1;
      if (total > limits.maxCompletions()) {
        throw new HttpError(413, "batch holds " + total + " completions; at most " + limits.maxCompletions());
      }
      ObjectNode o = Datasets.JSON.createObjectNode();
      ArrayNode rs = o.putArray("responses");
      for (int i = 0; i < reqs.size(); i++) {
        try {
          rs.add(score(reqs.get(i), "requests[" + i + "]: "));
        } catch (HttpError | UserError e) {
          rs.add(error(e.getMessage()));
        }
      }
      return o;
    }
    if (parts[0].equals("episodes")) return episodes(ex, method, parts);
    throw new HttpError(404, "no such path " + path + " (see GET /health, POST /score, /score/batch, /episodes)");
  }

  private JsonNode score(JsonNode req, String where) {
    if (req == null || !req.isObject()) throw new HttpError(400, where + "expected a JSON object");
    Level level = level(req, where);
    List<String> cs = new ArrayList<>();
    JsonNode many = req.get("completions"), one = req.get("completion");
    if (many != null && one != null) throw new HttpError(400, where + "give \"completions\" or \"completion\", not both");
    if (many != null) {
      if (!many.isArray()) throw new HttpError(400, where + "\"completions\" must be an array of strings");
      if (many.size() > limits.maxCompletions()) {
        throw new HttpError(413, where + many.size() + " completions; at most " + limits.maxCompletions());
      }
      for (JsonNode c : many) {
        if (!c.isTextual()) throw new HttpError(400, where + "\"completions\" must be an array of strings");
        cs.add(c.asText());
      }
    } else if (one != null) {
      if (!one.isTextual()) throw new HttpError(400, where + "\"completion\" must be a string");
      cs.add(one.asText());
    } else {
      throw new HttpError(400, where + "missing \"completions\" (array) or \"completion\" (string)");
    }
    ObjectNode o = Datasets.JSON.createObjectNode();
    ArrayNode rs = o.putArray("results");
    double sum = 0;
    for (String c : cs) {
      Reward.Result r = Reward.score(level, c);
      sum += r.reward();
      rs.addObject().put("reward", r.reward()).put("answered", r.answered()).put("moves", r.moves())
          .put("final_board", LlmBoard.question(r.finalBoard()));
    }
    o.put("mean_reward", cs.isEmpty() ? 0.0 : sum / cs.size());
    return o;
  }

  private Level level(JsonNode req, String where) {
    JsonNode idx = req.get("index"), board = req.get("board");
    if (idx != null && board != null) throw new HttpError(400, where + "give \"index\" or \"board\", not both");
    if (idx != null) {
      if (!idx.isInt()) throw new HttpError(400, where + "\"index\" must be an integer");
      return puzzle(idx.asInt()).level();
    }
    if (board != null) {
      if (!board.isTextual()) throw new HttpError(400, where + "\"board\" must be a string in the LLM legend");
      try {
        return LlmBoard.parse(board.asText(), where + "board");
      } catch (UserError e) {
        throw new HttpError(400, e.getMessage());
      }
    }
    throw new HttpError(400, where + "missing \"index\" (dataset row) or \"board\" (LLM legend text)");
  }

  private Puzzle puzzle(int i) {
    if (puzzles.isEmpty()) throw new HttpError(404, "no dataset loaded (start the service with --dataset); send \"board\" instead");
    if (i < 0 || i >= puzzles.size()) throw new HttpError(404, "index " + i + " is not a dataset row (0.." + (puzzles.size() - 1) + ")");
    return puzzles.get(i);
  }

  private JsonNode episodes(HttpExchange ex, String method, String[] parts) throws IOException {
    if (parts.length == 1) {
      requireMethod(method, "POST");
      JsonNode req = body(ex);
      if (!req.isObject()) throw new HttpError(400, "expected a JSON object");
      Level level = level(req, "");
      int m = intOr(req, "max_actions", DEFAULT_MAX_ACTIONS, limits.maxActionsCap());
      int r = intOr(req, "max_turns", DEFAULT_MAX_TURNS, limits.maxTurnsCap());
      if (episodes.size() >= limits.maxEpisodes()) {
        throw new HttpError(429, "too many open episodes (" + limits.maxEpisodes() + "); DELETE finished ones");
      }
      String id = "e" + nextEpisode.getAndIncrement();
      Episode e = new Episode(level, m, r);
      episodes.put(id, e);
      synchronized (e) {
        return state(id, e);
      }
    }
    Episode e = episodes.get(parts[1]);
    if (e == null) throw new HttpError(404, "no episode " + parts[1]);
    if (parts.length == 2) {
      if (method.equals("DELETE")) {
        episodes.remove(parts[1]);
        return Datasets.JSON.createObjectNode().put("episode", parts[1]).put("closed", true);
      }
      requireMethod(method, "GET");
      synchronized (e) {
        return state(parts[1], e);
      }
    }
    if (parts.length == 3 && parts[2].equals("step")) {
      requireMethod(method, "POST");
      JsonNode req = body(ex);
      JsonNode a = req.get("actions");
      if (a == null || !a.isTextual()) throw new HttpError(400, "missing \"actions\": a string like \"Up || Left\"");
      synchronized (e) {
        if (e.done()) throw new HttpError(409, "episode " + parts[1] + " is over");
        Episode.Turn t = e.step(a.asText());
        ObjectNode o = state(parts[1], e);
        ArrayNode taken = o.putArray("actions_taken");
        t.taken().forEach(taken::add);
        ArrayNode rw = o.putArray("rewards");
        t.rewards().forEach(rw::add);
        o.put("reward", t.reward());
        ArrayNode inv = o.putArray("invalid_actions");
        t.invalid().forEach(inv::add);
        o.put("ignored_actions", t.ignored());
        return o;
      }
    }
    throw new HttpError(404, "no such path " + ex.getRequestURI().getPath());
  }

  private static ObjectNode state(String id, Episode e) {
    return Datasets.JSON.createObjectNode().put("episode", id).put("board", LlmBoard.question(e.board()))
        .put("turn", e.turn()).put("turns_left", e.turnsLeft()).put("max_actions", e.maxActions())
        .put("total_reward", e.totalReward()).put("solved", e.solved()).put("done", e.done());
  }

  private static int intOr(JsonNode req, String key, int dflt, int cap) {
    JsonNode v = req.get(key);
    if (v == null) return dflt;
    if (!v.isInt() || v.asInt() < 1 || v.asInt() > cap) {
      throw new HttpError(400, "\"" + key + "\" must be an integer in 1.." + cap);
    }
    return v.asInt();
  }

  private static int parseIndex(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new HttpError(400, "'" + s + "' is not a row index");
    }
  }

  private static void requireMethod(String method, String want) {
    if (!method.equals(want)) throw new HttpError(405, "use " + want + ", not " + method);
  }

  private JsonNode body(HttpExchange ex) throws IOException {
    InputStream in = ex.getRequestBody();
    byte[] b = in.readNBytes(limits.maxBodyBytes() + 1);
    if (b.length > limits.maxBodyBytes()) {
      throw new HttpError(413, "request body over " + limits.maxBodyBytes() + " bytes");
    }
    try {
      JsonNode n = Datasets.JSON.readTree(b);
      if (n == null || n.isMissingNode()) throw new HttpError(400, "empty body; expected JSON");
      return n;
    } catch (JsonProcessingException e) {
      throw new HttpError(400, "body is not valid JSON (" + e.getOriginalMessage() + ")");
    }
  }
}
