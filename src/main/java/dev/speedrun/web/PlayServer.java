package dev.speedrun.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The play-and-watch page: the JDK's HTTP server, one page (static files from the classpath folder
 * {@code web/}) and a few JSON endpoints. The page applies the rules itself (web/sokoban.js, a copy
 * of {@link dev.speedrun.sokoban.Game} that the tests check against it); the server supplies levels,
 * checks replays, and runs agents and the solver.
 *
 * <p>Safety: binds to the address it is given (the command's default is 127.0.0.1); accepts only a
 * loopback Host header when bound to loopback (against DNS rebinding); POSTs must be JSON (a foreign
 * page cannot send those without a CORS preflight, which is never granted); bodies over
 * {@link #MAX_BODY} bytes and long URLs are refused; level names and checkpoints are chosen from
 * fixed lists, never paths. Every refusal is a 4xx with {@code {"error": reason}}, and the server
 * keeps serving.
 */
public final class PlayServer implements AutoCloseable {
  public static final int MAX_BODY = 64 * 1024;
  public static final int MAX_URI = 2048;

  /** Loads a checkpoint into a policy (nn.Policies::load in the real command). */
  @FunctionalInterface
  public interface PolicyLoader {
    PolicyNet load(Path checkpoint) throws Exception;
  }

  /** Solves a level; the moves as U/D/L/R letters, or empty when it finds none. */
  @FunctionalInterface
  public interface Solver {
    Optional<String> solve(Level level);
  }

  /** Generates a level of a named style from a seed. */
  public interface Generator {
    java.util.List<String> styles();

    Level generate(String style, long seed);
  }

  /** What the server serves; null parts are switched off and the page says so. */
  public record Options(
      String host, int port, LevelLibrary levels, Path root, PolicyLoader policies, Solver solver, Generator generator) {}

  private static final Map<String, String> STATIC = Map.of(
      "/", "index.html",
      "/index.html", "index.html",
      "/app.js", "app.js",
      "/sokoban.js", "sokoban.js",
      "/style.css", "style.css",
      "/favicon.svg", "favicon.svg");

  private final Options opt;
  private final HttpServer server;
  private final ExecutorService pool;
  private final ObjectMapper json =
      new ObjectMapper().enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final Map<String, byte[]> files = new HashMap<>();
  private final Checkpoints checkpoints;
  private final boolean loopback;
  private record Cached(long mtime, PolicyNet net) {}

  private final Map<Path, Cached> policyCache = new LinkedHashMap<>(); // at most 4, oldest dropped first

  private PlayServer(Options opt) throws IOException {
    this.opt = opt;
    this.checkpoints = opt.root() == null ? null : new Checkpoints(opt.root());
    for (String f : STATIC.values()) files.computeIfAbsent(f, PlayServer::resource);
    InetAddress addr = InetAddress.getByName(opt.host());
    this.loopback = addr.isLoopbackAddress();
    this.server = HttpServer.create(new InetSocketAddress(addr, opt.port()), 16);
    this.pool = Executors.newFixedThreadPool(8, r -> { // a few slow solves must not block the page
      Thread t = new Thread(r, "play-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext("/", this::handle);
  }

  /** Starts a server; port 0 picks a free one. */
  public static PlayServer start(Options opt) throws IOException {
    PlayServer s = new PlayServer(opt);
    s.server.start();
    return s;
  }

  public int port() { return server.getAddress().getPort(); }

  /** The page's address, e.g. {@code http://127.0.0.1:8080/}. */
  public String url() {
    String h = server.getAddress().getAddress().getHostAddress();
    if (h.contains(":")) h = "[" + h + "]";
    return "http://" + h + ":" + port() + "/";
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }

  private static byte[] resource(String name) {
    try (InputStream in = PlayServer.class.getClassLoader().getResourceAsStream("web/" + name)) {
      if (in == null) throw new IllegalStateException("page asset web/" + name + " is missing from the build");
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read page asset web/" + name, e);
    }
  }

  // ---------------------------------------------------------------- dispatch

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      try {
        route(ex);
      } catch (HttpError e) {
        sendError(ex, e.status(), e.getMessage());
      } catch (RuntimeException e) {
        System.err.println("play: internal error on " + ex.getRequestURI().getRawPath() + ": " + e);
        sendError(ex, 500, "internal error: " + e.getClass().getSimpleName());
      }
    } catch (IOException e) {
      // the client went away; nothing to answer
    }
  }

  private void route(HttpExchange ex) throws IOException {
    String rawUri = ex.getRequestURI().toString();
    if (rawUri.length() > MAX_URI) throw new HttpError(414, "the address is longer than " + MAX_URI + " characters");
    checkHost(ex);
    String path = ex.getRequestURI().getRawPath();
    String method = ex.getRequestMethod();
    if (STATIC.containsKey(path)) {
      requireMethod(ex, "GET");
      String name = STATIC.get(path);
      send(ex, 200, contentType(name), files.get(name));
      return;
    }
    switch (path) {
      case "/api/info" -> { requireMethod(ex, "GET"); sendJson(ex, info()); }
      case "/api/level" -> { requireMethod(ex, "GET"); sendJson(ex, level(query(ex))); }
      case "/api/random" -> { requireMethod(ex, "GET"); sendJson(ex, random(query(ex))); }
      case "/api/checkpoints" -> { requireMethod(ex, "GET"); sendJson(ex, checkpointList()); }
      case "/api/parse" -> { requireMethod(ex, "POST"); sendJson(ex, parse(body(ex))); }
      case "/api/replay" -> { requireMethod(ex, "POST"); sendJson(ex, replay(body(ex))); }
      case "/api/watch" -> { requireMethod(ex, "POST"); sendJson(ex, watch(body(ex))); }
      case "/api/solve" -> { requireMethod(ex, "POST"); sendJson(ex, solve(body(ex))); }
      default -> throw HttpError.notFound("no such page or endpoint: " + LevelLibrary.abbreviate(path) + " (" + method + ")");
    }
  }

  private void checkHost(HttpExchange ex) {
    if (!loopback) return;
    String host = ex.getRequestHeaders().getFirst("Host");
    if (host == null) throw HttpError.badRequest("the request has no Host header");
    String h = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.replaceFirst(":\\d+$", "");
    if (!(h.equals("127.0.0.1") || h.equalsIgnoreCase("localhost") || h.equals("[::1]"))) {
      throw new HttpError(403, "Host '" + LevelLibrary.abbreviate(host) + "' is not this loopback server's address");
    }
  }

  private static void requireMethod(HttpExchange ex, String method) {
    String m = ex.getRequestMethod();
    if (m.equals(method) || (method.equals("GET") && m.equals("HEAD"))) return;
    ex.getResponseHeaders().set("Allow", method.equals("GET") ? "GET, HEAD" : method);
    throw new HttpError(405, m + " is not allowed here; use " + method);
  }

  private static Map<String, String> query(HttpExchange ex) {
    Map<String, String> q = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw == null || raw.isEmpty()) return q;
    for (String part : raw.split("&")) {
      if (part.isEmpty()) continue;
      int eq = part.indexOf('=');
      try {
        String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
        String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
        q.put(k, v);
      } catch (IllegalArgumentException e) {
        throw HttpError.badRequest("the query string is malformed: " + e.getMessage());
      }
    }
    return q;
  }

  private JsonNode body(HttpExchange ex) throws IOException {
    String type = ex.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
      throw new HttpError(415, "the request body must be JSON (Content-Type: application/json)");
    }
    String len = ex.getRequestHeaders().getFirst("Content-Length");
    if (len != null) {
      long n;
      try {
        n = Long.parseLong(len.trim());
      } catch (NumberFormatException e) {
        throw HttpError.badRequest("Content-Length '" + LevelLibrary.abbreviate(len) + "' is not a number");
      }
      if (n > MAX_BODY) throw new HttpError(413, "the request body has " + n + " bytes, more than " + MAX_BODY);
    }
    byte[] data = ex.getRequestBody().readNBytes(MAX_BODY + 1);
    if (data.length > MAX_BODY) throw new HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
    if (data.length == 0) throw HttpError.badRequest("the request body is empty; expected a JSON object");
    JsonNode node;
    try {
      node = json.readTree(data);
    } catch (JsonProcessingException e) {
      var at = e.getLocation(); // null for some faults (e.g. nesting too deep)
      throw HttpError.badRequest("the request body is not valid JSON: " + LevelLibrary.abbreviate(e.getOriginalMessage())
          + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    }
    if (node == null || !node.isObject()) throw HttpError.badRequest("the request body must be a JSON object");
    return node;
  }

  private static String field(JsonNode body, String key) {
    JsonNode v = body.get(key);
    if (v == null || v.isNull()) throw HttpError.badRequest("the request has no '" + key + "'");
    if (!v.isTextual()) throw HttpError.badRequest("'" + key + "' must be a string");
    return v.asText();
  }

  private static int intParam(Map<String, String> q, String key, int min, int max) {
    String v = q.get(key);
    if (v == null || v.isEmpty()) throw HttpError.badRequest("the query has no '" + key + "'");
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw HttpError.badRequest("'" + key + "' must be a whole number, not '" + LevelLibrary.abbreviate(v) + "'");
    }
    if (n < min || n > max) throw HttpError.badRequest("'" + key + "' is " + n + ", outside " + min + ".." + max);
    return n;
  }

  // ---------------------------------------------------------------- endpoints

  private ObjectNode info() {
    ObjectNode o = json.createObjectNode();
    ArrayNode splits = o.putArray("splits");
    if (opt.levels() != null) {
      for (LevelLibrary.Split s : opt.levels().splits()) splits.addObject().put("name", s.name()).put("files", s.files());
    }
    o.put("levels", opt.levels() != null);
    o.put("watch", opt.policies() != null && checkpoints != null);
    o.put("solver", opt.solver() != null);
    ArrayNode styles = o.putArray("generator");
    if (opt.generator() != null) opt.generator().styles().forEach(styles::add);
    return o;
  }

  private LevelLibrary levels() {
    if (opt.levels() == null) {
      throw HttpError.notFound("no Boxoban levels folder was found (use --levels DIR or SOKOBAN_LEVELS)");
    }
    return opt.levels();
  }

  private ObjectNode levelJson(String address, Level level) {
    ObjectNode o = json.createObjectNode();
    o.put("address", address);
    o.put("level", level.toXsb());
    o.put("sha256", level.sha256());
    return o;
  }

  private ObjectNode level(Map<String, String> q) {
    String split = q.get("split");
    int file = intParam(q, "file", 0, 999);
    int index = intParam(q, "index", 0, 1_000_000);
    LevelLibrary.Found f = levels().level(split, file, index);
    return levelJson(f.address(), f.entry().level());
  }

  private ObjectNode random(Map<String, String> q) {
    String source = q.getOrDefault("source", "");
    long seed = q.containsKey("seed") ? intParam(q, "seed", 0, Integer.MAX_VALUE) : System.nanoTime();
    if (source.startsWith("generated:")) {
      if (opt.generator() == null) throw HttpError.notFound("this build has no level generator");
      String style = source.substring("generated:".length());
      if (!opt.generator().styles().contains(style)) {
        throw HttpError.badRequest("unknown generator style '" + LevelLibrary.abbreviate(style) + "'; expected one of " + opt.generator().styles());
      }
      Level l = opt.generator().generate(style, seed);
      return levelJson("generated " + style + " seed " + seed, l);
    }
    LevelLibrary.Found f = levels().random(source, seed);
    return levelJson(f.address(), f.entry().level());
  }

  private ObjectNode parse(JsonNode body) {
    String text = field(body, "text");
    String format = body.hasNonNull("format") ? field(body, "format") : "auto";
    Level l = BoardText.parse(text, format);
    return levelJson("pasted board", l);
  }

  private ObjectNode replay(JsonNode body) {
    Replay r = Replay.of(body);
    Replay.Outcome out = r.outcome();
    ObjectNode o = json.createObjectNode();
    o.set("replay", r.toJson(json));
    o.put("sha256", r.parsedLevel().sha256());
    o.put("solved", out.solved());
    o.put("applied", out.applied());
    o.put("moves", out.moves());
    o.put("pushes", out.pushes());
    return o;
  }

  private ObjectNode checkpointList() {
    ObjectNode o = json.createObjectNode();
    ArrayNode a = o.putArray("checkpoints");
    if (checkpoints != null && opt.policies() != null) checkpoints.list().forEach(a::add);
    return o;
  }

  private ObjectNode watch(JsonNode body) {
    if (checkpoints == null || opt.policies() == null) throw HttpError.notFound("this build cannot load checkpoints");
    Path file = checkpoints.resolve(field(body, "checkpoint"));
    Level level = BoardText.parse(field(body, "level"), "xsb");
    PolicyNet net = policy(file);
    Watcher.Episode ep = Watcher.run(net, level);
    ObjectNode o = json.createObjectNode();
    ArrayNode steps = o.putArray("steps");
    StringBuilder letters = new StringBuilder();
    for (Watcher.Step s : ep.steps()) {
      ObjectNode st = steps.addObject();
      st.put("action", s.action());
      ArrayNode p = st.putArray("probs");
      for (float x : s.probs()) p.add(x);
      st.put("value", s.value());
      var d = dev.speedrun.sokoban.Direction.ofAction(s.action());
      if (d != null) letters.append(d.letter());
    }
    o.put("solved", ep.solved());
    o.put("doneAt", ep.doneAt());
    o.put("actions", letters.toString());
    return o;
  }

  private PolicyNet policy(Path file) {
    long mtime;
    try {
      mtime = Files.getLastModifiedTime(file).toMillis();
    } catch (IOException e) {
      throw HttpError.notFound("checkpoint " + file.getFileName() + " cannot be read: " + e.getMessage());
    }
    synchronized (policyCache) {
      Cached c = policyCache.get(file);
      if (c != null && c.mtime() == mtime) return c.net();
    }
    PolicyNet net;
    try {
      net = opt.policies().load(file);
    } catch (dev.speedrun.UserError e) {
      throw new HttpError(422, e.getMessage());
    } catch (Exception e) {
      throw new HttpError(422, "checkpoint " + file.getFileName() + " cannot be loaded: " + e.getMessage());
    }
    synchronized (policyCache) {
      policyCache.remove(file);
      if (policyCache.size() >= 4) policyCache.remove(policyCache.keySet().iterator().next());
      policyCache.put(file, new Cached(mtime, net));
    }
    return net;
  }

  private ObjectNode solve(JsonNode body) {
    if (opt.solver() == null) throw HttpError.notFound("this build has no solver");
    Level level = BoardText.parse(field(body, "level"), "xsb");
    Optional<String> sol = opt.solver().solve(level);
    if (sol.isEmpty()) throw new HttpError(422, "the solver found no solution for this level within its limits");
    ObjectNode o = json.createObjectNode();
    o.put("actions", sol.get());
    return o;
  }

  // ---------------------------------------------------------------- responses

  private static String contentType(String name) {
    if (name.endsWith(".html")) return "text/html; charset=utf-8";
    if (name.endsWith(".js")) return "text/javascript; charset=utf-8";
    if (name.endsWith(".css")) return "text/css; charset=utf-8";
    if (name.endsWith(".svg")) return "image/svg+xml";
    return "application/octet-stream";
  }

  private void sendJson(HttpExchange ex, JsonNode node) throws IOException {
    send(ex, 200, "application/json; charset=utf-8", json.writeValueAsBytes(node));
  }

  private void sendError(HttpExchange ex, int status, String reason) throws IOException {
    ObjectNode o = json.createObjectNode();
    o.put("error", reason);
    o.put("status", status);
    send(ex, status, "application/json; charset=utf-8", json.writeValueAsBytes(o));
  }

  private static void send(HttpExchange ex, int status, String type, byte[] data) throws IOException {
    var h = ex.getResponseHeaders();
    h.set("Content-Type", type);
    h.set("Cache-Control", "no-store");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
    if (status >= 400) h.set("Connection", "close"); // a refused body may still be on its way: don't reuse
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : (data.length == 0 ? -1 : data.length));
    if (!head && data.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(data);
      }
    }
  }
}
