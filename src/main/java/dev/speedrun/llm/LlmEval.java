package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The LLM track's evaluation protocol against a chat server: k completions per puzzle (one
 * request with {@code n = k} where the server allows it, else k requests with seeds
 * {@code seed + i}), each scored by {@link Reward}; pass@1 with its interval ({@link PassStats}).
 *
 * <p>Partial results: a JSONL file whose first line is a header of the settings and whose other
 * lines are finished puzzles, each appended in one write and forced to disk as soon as the puzzle
 * is done. An interrupted run resumes from it without asking again for what it has; a torn last
 * line (a crash mid-write) is cut off and that puzzle asked again. A header that does not match
 * the settings is an error rather than a silent mix of two runs.
 */
public final class LlmEval {
  private LlmEval() {}

  public enum NMode { AUTO, N, SEEDS }

  /** The protocol's settings; {@link #benchmark} are the benchmark's defaults. */
  public record Settings(int k, double temperature, double topP, int maxTokens, long seed,
      int concurrency, NMode nMode) {
    public static Settings benchmark() {
      return new Settings(8, 0.8, 0.95, 12_288, 12345, 8, NMode.AUTO);
    }
  }

  /** One puzzle's k completions and their scores. */
  /**
   * One puzzle's k completions, their finish reasons ("stop", "length" = cut at max tokens, or
   * null when the server gave none) and their scores.
   */
  public record PuzzleResult(int index, List<String> completions, List<String> finishReasons,
      List<Reward.Result> results) {
    public int solved() {
      int s = 0;
      for (Reward.Result r : results) if (r.solved()) s++;
      return s;
    }

    /** Completions cut at the token limit (finish reason "length"). */
    public int truncated() {
      int s = 0;
      for (String f : finishReasons) if ("length".equals(f)) s++;
      return s;
    }

    public int answered() {
      int s = 0;
      for (Reward.Result r : results) if (r.answered()) s++;
      return s;
    }
  }

  /** The outcome: figures, per-puzzle results in dataset order, and how the server was asked. */
  public record Report(PassStats stats, List<PuzzleResult> puzzles, NMode mode, int resumed,
      long requests, long retries) {}

  /** Runs (or resumes) an evaluation; {@code progress} gets a progress line (may be null). */
  public static Report run(List<Puzzle> puzzles, Prompt prompt, ChatClient client, Settings s,
      Path partial, PrintStream progress) throws InterruptedException {
    if (s.k() < 1) throw new UserError("--k must be at least 1");
    if (s.concurrency() < 1) throw new UserError("--concurrency must be at least 1");
    ObjectNode header = header(puzzles, prompt, client, s);
    Map<Integer, PuzzleResult> done = new TreeMap<>(load(partial, header, puzzles));
    int resumed = done.size();
    if (!hasContent(partial)) appendLine(partial, Datasets.JSON.createObjectNode().set("header", header).toString(), true);
    List<Integer> todo = new ArrayList<>();
    for (int i = 0; i < puzzles.size(); i++) if (!done.containsKey(i)) todo.add(i);

    AtomicReference<NMode> mode = new AtomicReference<>(s.k() == 1 ? NMode.N : s.nMode());
    Progress prog = new Progress(progress, puzzles.size(), done.values());
    if (mode.get() == NMode.AUTO && !todo.isEmpty()) {
      int first = todo.remove(0);
      List<ChatClient.Choice> got = null;
      try {
        got = client.complete(prompt.messages(puzzles.get(first)), s.k(), s.seed());
      } catch (ChatClient.Rejected e) {
        if (e.status != 400 && e.status != 422) throw new UserError(e.getMessage());
      } catch (ChatClient.Failed e) {
        throw failed(e, partial);
      }
      if (got != null && got.size() == s.k()) {
        mode.set(NMode.N);
      } else {
        mode.set(NMode.SEEDS);
        got = askBySeeds(client, prompt.messages(puzzles.get(first)), s, partial);
      }
      PuzzleResult r = score(first, puzzles.get(first).level(), got);
      save(partial, r);
      done.put(first, r);
      prog.add(r);
    }

    ExecutorService pool = Executors.newFixedThreadPool(s.concurrency());
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int idx : todo) {
        fs.add(pool.submit(() -> {
          if (failure.get() != null) return;
          try {
            List<Prompt.Message> msgs = prompt.messages(puzzles.get(idx));
            List<ChatClient.Choice> got = mode.get() == NMode.N
                ? client.complete(msgs, s.k(), s.seed())
                : askBySeeds(client, msgs, s, partial);
            if (got.size() != s.k()) {
              throw new ChatClient.Failed("server returned " + got.size() + " choices for n=" + s.k()
                  + " on puzzle " + idx + "; try --n-mode seeds");
            }
            PuzzleResult r = score(idx, puzzles.get(idx).level(), got);
            save(partial, r);
            synchronized (done) {
              done.put(idx, r);
            }
            prog.add(r);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
          }
        }));
      }
      for (Future<?> f : fs) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          failure.compareAndSet(null, new IllegalStateException(e.getCause()));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    prog.finish();
    RuntimeException f = failure.get();
    if (f instanceof ChatClient.Failed cf) throw failed(cf, partial);
    if (f instanceof ChatClient.Rejected rj) throw new UserError(rj.getMessage() + "; partial results in " + partial);
    if (f != null) throw f;

    List<PuzzleResult> all = new ArrayList<>(done.values());
    int n = all.size();
    int[] solved = new int[n], answered = new int[n];
    for (int i = 0; i < n; i++) {
      solved[i] = all.get(i).solved();
      answered[i] = all.get(i).answered();
    }
    return new Report(PassStats.of(solved, answered, s.k()), all, mode.get(), resumed,
        client.requests(), client.retried());
  }

  private static boolean hasContent(Path p) {
    try {
      return Files.exists(p) && Files.size(p) > 0;
    } catch (IOException e) {
      throw new UserError("cannot read " + p + ": " + e.getMessage(), e);
    }
  }

  private static UserError failed(ChatClient.Failed e, Path partial) {
    return new UserError(e.getMessage() + "; partial results kept in " + partial
        + ", run the same command again to resume");
  }

  private static List<ChatClient.Choice> askBySeeds(ChatClient client, List<Prompt.Message> msgs, Settings s,
      Path partial) throws InterruptedException {
    List<ChatClient.Choice> out = new ArrayList<>(s.k());
    for (int i = 0; i < s.k(); i++) {
      List<ChatClient.Choice> one;
      try {
        one = client.complete(msgs, 1, s.seed() + i);
      } catch (ChatClient.Rejected e) {
        throw new UserError(e.getMessage());
      }
      if (one.size() != 1) throw new ChatClient.Failed("server returned " + one.size() + " choices for n=1");
      out.add(one.get(0));
    }
    return out;
  }

  static PuzzleResult score(int index, Level level, List<ChatClient.Choice> choices) {
    List<String> texts = new ArrayList<>(choices.size()), reasons = new ArrayList<>(choices.size());
    List<Reward.Result> rs = new ArrayList<>(choices.size());
    for (ChatClient.Choice c : choices) {
      texts.add(c.content());
      reasons.add(c.finishReason());
      rs.add(Reward.score(level, c.content()));
    }
    return new PuzzleResult(index, List.copyOf(texts), java.util.Collections.unmodifiableList(reasons), List.copyOf(rs));
  }

  static ObjectNode header(List<Puzzle> puzzles, Prompt prompt, ChatClient client, Settings s) {
    StringBuilder boards = new StringBuilder();
    for (Puzzle p : puzzles) boards.append(p.question()).append("\n\n");
    ObjectNode h = Datasets.JSON.createObjectNode();
    h.put("model", client == null ? "" : client.model());
    h.put("dataset_sha256", Level.sha256Hex(boards.toString()));
    h.put("puzzles", puzzles.size());
    h.put("prompt_sha256", Level.sha256Hex(prompt.messages(puzzles.get(0)).toString()));
    h.put("k", s.k());
    h.put("temperature", s.temperature());
    h.put("top_p", s.topP());
    h.put("max_tokens", s.maxTokens());
    h.put("seed", s.seed());
    // Normalized as read back from text, so a header compares equal to its own saved copy.
    return (ObjectNode) Datasets.parseJson(h.toString(), "header");
  }

  /** Reads finished puzzles from a partial file (none if absent); cuts a torn last line. */
  static Map<Integer, PuzzleResult> load(Path partial, ObjectNode header, List<Puzzle> puzzles) {
    Map<Integer, PuzzleResult> out = new TreeMap<>();
    if (!Files.exists(partial)) return out;
    String text;
    try {
      text = Files.readString(partial, StandardCharsets.UTF_8);
      int cut = text.lastIndexOf('\n') + 1;
      if (cut < text.length()) {
        try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE)) {
          ch.truncate(text.substring(0, cut).getBytes(StandardCharsets.UTF_8).length);
        }
        text = text.substring(0, cut);
      }
    } catch (IOException e) {
      throw new UserError("cannot read " + partial + ": " + e.getMessage(), e);
    }
    String[] lines = text.split("\n");
    if (text.isEmpty()) return out;
    JsonNode h = Datasets.parseJson(lines[0], partial + " line 1").get("header");
    if (h == null) throw new UserError(partial + " line 1: not an llm eval results file (no header)");
    if (!h.equals(header)) {
      throw new UserError(partial + " was made with other settings (" + diff(h, header)
          + "); use another --out or delete it");
    }
    for (int i = 1; i < lines.length; i++) {
      String where = partial + " line " + (i + 1);
      if (lines[i].isBlank()) continue;
      JsonNode n = Datasets.parseJson(lines[i], where);
      int idx = Datasets.integer(n, "index", where);
      if (idx < 0 || idx >= puzzles.size()) throw new UserError(where + ": index " + idx + " is not a dataset row");
      JsonNode cs = n.get("completions");
      if (cs == null || !cs.isArray() || cs.size() != header.get("k").asInt()) {
        throw new UserError(where + ": expected " + header.get("k").asInt() + " completions");
      }
      JsonNode fr = n.get("finish_reasons");
      List<ChatClient.Choice> texts = new ArrayList<>();
      for (int j = 0; j < cs.size(); j++) {
        JsonNode f = fr != null && fr.isArray() && j < fr.size() ? fr.get(j) : null;
        texts.add(new ChatClient.Choice(cs.get(j).asText(), f == null || f.isNull() ? null : f.asText()));
      }
      out.put(idx, score(idx, puzzles.get(idx).level(), texts));
    }
    return out;
  }

  private static String diff(JsonNode was, JsonNode now) {
    List<String> d = new ArrayList<>();
    now.fieldNames().forEachRemaining(k -> {
      if (!now.get(k).equals(was.get(k))) d.add(k + " " + was.get(k) + " vs " + now.get(k));
    });
    return d.isEmpty() ? "different header" : String.join(", ", d);
  }

  private static void save(Path partial, PuzzleResult r) {
    ObjectNode o = Datasets.JSON.createObjectNode();
    o.put("index", r.index());
    o.put("solved", r.solved());
    ArrayNode rw = o.putArray("rewards"), mv = o.putArray("moves"), cs = o.putArray("completions");
    for (Reward.Result x : r.results()) {
      rw.add(x.reward());
      if (x.answered()) mv.add(x.moves()); else mv.addNull();
    }
    ArrayNode fr = o.putArray("finish_reasons");
    r.finishReasons().forEach(fr::add);
    r.completions().forEach(cs::add);
    appendLine(partial, o.toString(), false);
  }

  /** Appends one line in a single write and forces it to disk. */
  private static synchronized void appendLine(Path file, String line, boolean create) {
    try {
      Path abs = file.toAbsolutePath();
      if (abs.getParent() != null) Files.createDirectories(abs.getParent());
      try (FileChannel ch = FileChannel.open(abs, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND)) {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) ch.write(b);
        ch.force(false);
      }
    } catch (IOException e) {
      throw new UserError("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The progress line: puzzles done, running pass@1 and answer rate. */
  static final class Progress {
    private final PrintStream out;
    private final int total;
    private int done, samples, solved, answered;
    private final long start = System.nanoTime();

    Progress(PrintStream out, int total, Iterable<PuzzleResult> already) {
      this.out = out;
      this.total = total;
      for (PuzzleResult r : already) count(r);
    }

    private void count(PuzzleResult r) {
      done++;
      samples += r.results().size();
      solved += r.solved();
      answered += r.answered();
    }

    synchronized void add(PuzzleResult r) {
      count(r);
      if (out == null) return;
      double secs = (System.nanoTime() - start) / 1e9;
      int width = 30, filled = (int) ((long) width * done / total);
      out.printf("\r[%s%s] %d/%d puzzles  pass@1 %.3f  answered %.3f  %.0f s",
          "#".repeat(filled), ".".repeat(width - filled), done, total,
          samples == 0 ? 0.0 : (double) solved / samples, samples == 0 ? 0.0 : (double) answered / samples, secs);
      out.flush();
    }

    synchronized void finish() {
      if (out != null && done > 0) out.println();
    }
  }

  /** The report as JSON: figures, settings and per-puzzle results. */
  public static ObjectNode toJson(Report r, Settings s, String model, String endpoint, String dataset) {
    ObjectNode o = Datasets.JSON.createObjectNode();
    o.put("model", model).put("endpoint", endpoint).put("dataset", dataset);
    o.put("k", s.k()).put("temperature", s.temperature()).put("top_p", s.topP())
        .put("max_tokens", s.maxTokens()).put("seed", s.seed()).put("n_mode", r.mode().name().toLowerCase());
    o.put("resumed_puzzles", r.resumed()).put("requests", r.requests()).put("retries", r.retries());
    figures(o, r, s.k());
    return o;
  }

  /** Adds the figures and per-puzzle results of a report to {@code o}. */
  public static void figures(ObjectNode o, Report r, int k) {
    PassStats st = r.stats();
    o.put("puzzles", st.puzzles()).put("pass_at_1", st.pass1()).put("pass_at_k", st.passK())
        .put("answer_rate", st.answerRate());
    int truncated = 0;
    for (PuzzleResult p : r.puzzles()) truncated += p.truncated();
    o.put("truncated_completions", truncated);
    o.putObject("ci").put("method", st.interval()).put("lo", st.lo()).put("hi", st.hi());
    o.put("lower_ci", st.lo()).put("bar", 0.80).put("clears_bar", st.lo() > 0.80);
    ArrayNode per = o.putArray("per_puzzle");
    for (PuzzleResult p : r.puzzles()) {
      ObjectNode x = per.addObject();
      x.put("index", p.index()).put("solved", p.solved()).put("answered", p.answered())
          .put("truncated", p.truncated())
          .put("pass_at_1", (double) p.solved() / k);
      ArrayNode mv = x.putArray("moves");
      for (Reward.Result rr : p.results()) if (rr.answered()) mv.add(rr.moves()); else mv.addNull();
    }
  }
}
