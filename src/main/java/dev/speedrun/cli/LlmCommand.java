package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.llm.Completions;
import dev.speedrun.llm.PuzzleGenerator;
import dev.speedrun.llm.Prompt;
import dev.speedrun.llm.ChatClient;
import dev.speedrun.llm.LlmEval;
import dev.speedrun.llm.PassStats;
import dev.speedrun.llm.AgentEval;
import dev.speedrun.llm.RewardService;
import dev.speedrun.llm.Datasets;
import dev.speedrun.llm.Puzzle;
import dev.speedrun.llm.Reward;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ./speedrun llm ...}: the LLM track (datasets, reward, evaluation, reward service). */
@Command(
    name = "llm",
    mixinStandardHelpOptions = true,
    description = "The LLM track: datasets, reward, evaluation against OpenAI-compatible servers, reward service.",
    subcommands = {LlmCommand.Dataset.class, LlmCommand.PromptCmd.class, LlmCommand.Score.class, LlmCommand.Eval.class, LlmCommand.Serve.class})
public final class LlmCommand implements Runnable {
  @Spec CommandSpec spec;

  static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static void printJson(PrintWriter out, Object node) throws Exception {
    out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
    out.flush();
  }

  @Command(name = "dataset", mixinStandardHelpOptions = true,
      description = {"Generate an LLM-track dataset (6-7 wide and high, 2-3 boxes, optimal gold answer).",
          "Train and eval never share a board (eval boards are those whose sha256 starts with 0);",
          "the same seed gives the same file."})
  static final class Dataset implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--split", required = true, description = "train or eval.")
    String split;

    @Option(names = "--count", required = true, description = "Number of puzzles.")
    int count;

    @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", description = "Output JSONL (default: standard output).")
    Path out;

    @Option(names = "--exclude", description = "Dataset JSONL whose boards must not appear (repeatable).")
    List<Path> exclude = new java.util.ArrayList<>();

    @Option(names = "--min-moves", defaultValue = "5", description = "Shortest gold answer (default ${DEFAULT-VALUE}).")
    int minMoves;

    @Option(names = "--max-moves", defaultValue = "14", description = "Longest gold answer (default ${DEFAULT-VALUE}).")
    int maxMoves;

    @Option(names = "--json", description = "Print a JSON summary (with --out).")
    boolean json;

    @Option(names = "--boxoban-out", description = "Also write the boards padded with walls to 10x10 as a Boxoban file, for training our agents.")
    Path boxobanOut;

    @Override
    public Integer call() throws Exception {
      PuzzleGenerator.Split sp = switch (split) {
        case "train" -> PuzzleGenerator.Split.TRAIN;
        case "eval" -> PuzzleGenerator.Split.EVAL;
        default -> throw new UserError("--split must be train or eval, not '" + split + "'");
      };
      if (count < 1) throw new UserError("--count must be at least 1");
      if (minMoves < 1 || maxMoves < minMoves) throw new UserError("--min-moves/--max-moves must satisfy 1 <= min <= max");
      java.util.Set<String> ex = new java.util.HashSet<>();
      for (Path p : exclude) for (Puzzle q : Datasets.read(p)) ex.add(q.question());
      PuzzleGenerator.Settings d = PuzzleGenerator.Settings.DEFAULT;
      PuzzleGenerator.Settings s = new PuzzleGenerator.Settings(d.minSide(), d.maxSide(), d.minBoxes(),
          d.maxBoxes(), minMoves, maxMoves, d.maxStates());
      List<Puzzle> ps = PuzzleGenerator.generate(sp, count, seed, s, ex);
      if (boxobanOut != null) {
        List<dev.speedrun.sokoban.Level> padded = new java.util.ArrayList<>();
        for (Puzzle p : ps) padded.add(PuzzleGenerator.pad10(p.level()));
        Datasets.writeAtomically(boxobanOut, dev.speedrun.sokoban.Formats.toBoxoban(padded));
      }
      PrintWriter o = spec.commandLine().getOut();
      if (out == null) {
        for (Puzzle p : ps) o.println(JSON.writeValueAsString(Datasets.toJson(p)));
        o.flush();
        return 0;
      }
      Datasets.write(out, ps);
      int[] hist = new int[maxMoves + 1];
      int boxes3 = 0;
      for (Puzzle p : ps) {
        hist[p.answer().length()]++;
        if (p.level().boxCount() == 3) boxes3++;
      }
      if (json) {
        ObjectNode root = JSON.createObjectNode();
        root.put("out", out.toString()).put("split", split).put("count", ps.size()).put("seed", seed)
            .put("three_box", boxes3);
        ObjectNode h = root.putObject("answer_length");
        for (int i = 0; i <= maxMoves; i++) if (hist[i] > 0) h.put(String.valueOf(i), hist[i]);
        printJson(o, root);
      } else {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i <= maxMoves; i++) if (hist[i] > 0) sb.append(' ').append(i).append(':').append(hist[i]);
        o.printf("wrote %d %s puzzles (seed %d, %d with 3 boxes) to %s; answer lengths%s%n",
            ps.size(), split, seed, boxes3, out, sb);
        o.flush();
      }
      return 0;
    }
  }

  @Command(name = "prompt", mixinStandardHelpOptions = true,
      description = "Print the chat messages sent to a model for one puzzle.")
  static final class PromptCmd implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--dataset", required = true, description = "Dataset JSONL.")
    Path dataset;

    @Option(names = "--index", defaultValue = "0", description = "Row (0-based, default ${DEFAULT-VALUE}).")
    int index;

    @Option(names = "--template", description = "Chat template JSON (default: the built-in prompt.json).")
    Path template;

    @Option(names = "--json", description = "Print the messages as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      List<Puzzle> ps = Datasets.read(dataset);
      if (index < 0 || index >= ps.size()) {
        throw new UserError("--index " + index + " is not a row of " + dataset + " (0.." + (ps.size() - 1) + ")");
      }
      List<Prompt.Message> msgs = Prompt.load(template).messages(ps.get(index));
      PrintWriter o = spec.commandLine().getOut();
      if (json) {
        printJson(o, msgs);
      } else {
        for (Prompt.Message m : msgs) o.printf("[%s]%n%s%n%n", m.role(), m.content());
        o.flush();
      }
      return 0;
    }
  }

  @Command(name = "eval", mixinStandardHelpOptions = true,
      description = {"Evaluate a model behind any OpenAI-compatible server (/v1/chat/completions) on a dataset,",
          "with the benchmark's protocol: k completions per puzzle, binary reward, pass@1 with its",
          "lower 95% CI (bootstrap over puzzles; Wilson when k = 1). Partial results are saved as",
          "puzzles finish; rerunning the same command resumes."})
  static final class Eval implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--dataset", required = true, description = "Dataset JSONL.")
    Path dataset;

    @Option(names = "--agent", description = "Evaluate our RL agent from this checkpoint instead of a server (boards padded to 10x10, k sampled episodes, seed --seed).")
    Path agent;

    @Option(names = "--greedy", description = "With --agent: argmax actions instead of sampling.")
    boolean greedy;

    @Option(names = "--endpoint", description = "Server URL, e.g. http://127.0.0.1:8000 (or .../v1, or the full .../chat/completions).")
    String endpoint;

    @Option(names = "--model", description = "Model name sent to the server.")
    String model;

    @Option(names = "--k", defaultValue = "8", description = "Completions per puzzle (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--temperature", defaultValue = "0.8", description = "Default ${DEFAULT-VALUE}.")
    double temperature;

    @Option(names = "--top-p", defaultValue = "0.95", description = "Default ${DEFAULT-VALUE}.")
    double topP;

    @Option(names = "--max-tokens", defaultValue = "12288", description = "Default ${DEFAULT-VALUE}.")
    int maxTokens;

    @Option(names = "--seed", defaultValue = "12345", description = "Sampling seed (default ${DEFAULT-VALUE}); sample i uses seed+i when the server cannot do n=k.")
    long seed;

    @Option(names = "--n-mode", defaultValue = "auto", description = "auto (try n=k, fall back to seeds), n, or seeds (default ${DEFAULT-VALUE}).")
    String nMode;

    @Option(names = "--concurrency", defaultValue = "8", description = "Puzzles in flight (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--timeout", defaultValue = "900", description = "Seconds per request (default ${DEFAULT-VALUE}).")
    int timeout;

    @Option(names = "--retries", defaultValue = "6", description = "Retries per request on 429/5xx/timeouts/bad bodies (default ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = "--backoff-ms", defaultValue = "1000", description = "First retry delay, doubled per retry up to 60 s (default ${DEFAULT-VALUE}).")
    long backoffMs;

    @Option(names = "--limit", description = "Only the first N puzzles.")
    Integer limit;

    @Option(names = "--template", description = "Chat template JSON (default: built-in prompt.json).")
    Path template;

    @Option(names = "--out", description = "Partial results JSONL (default runs/llm-eval/<model>-<dataset>.jsonl); rerun to resume.")
    Path out;

    @Option(names = "--report", description = "Report JSON (default: --out with .report.json).")
    Path report;

    @Option(names = "--api-key-env", defaultValue = "OPENAI_API_KEY", description = "Environment variable holding a bearer token, if the server needs one (default ${DEFAULT-VALUE}).")
    String apiKeyEnv;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      LlmEval.NMode mode = switch (nMode) {
        case "auto" -> LlmEval.NMode.AUTO;
        case "n" -> LlmEval.NMode.N;
        case "seeds" -> LlmEval.NMode.SEEDS;
        default -> throw new UserError("--n-mode must be auto, n or seeds, not '" + nMode + "'");
      };
      if (k < 1) throw new UserError("--k must be at least 1");
      if (agent != null) return agentEval();
      if (endpoint == null || model == null) throw new UserError("llm eval needs --endpoint and --model (or --agent CHECKPOINT)");
      if (maxTokens < 1) throw new UserError("--max-tokens must be at least 1");
      if (timeout < 1) throw new UserError("--timeout must be at least 1 second");
      if (retries < 0) throw new UserError("--retries must not be negative");
      List<Puzzle> ps = Datasets.read(dataset);
      if (limit != null) {
        if (limit < 1) throw new UserError("--limit must be at least 1");
        ps = ps.subList(0, Math.min(limit, ps.size()));
      }
      Prompt prompt = Prompt.load(template);
      String stem = dataset.getFileName().toString().replaceFirst("\\.jsonl?$", "");
      Path partial = out != null ? out
          : Path.of("runs", "llm-eval", model.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + stem + ".jsonl");
      Path rep = report != null ? report
          : partial.resolveSibling(partial.getFileName().toString().replaceFirst("\\.jsonl?$", "") + ".report.json");
      ChatClient client = new ChatClient(endpoint, new ChatClient.Options(model, temperature, topP, maxTokens,
          java.time.Duration.ofSeconds(timeout), retries, java.time.Duration.ofMillis(backoffMs),
          java.time.Duration.ofSeconds(60), System.getenv(apiKeyEnv)));
      LlmEval.Settings s = new LlmEval.Settings(k, temperature, topP, maxTokens, seed, concurrency, mode);
      LlmEval.Report r = LlmEval.run(ps, prompt, client, s, partial, json ? null : System.err);
      ObjectNode j = LlmEval.toJson(r, s, model, client.uri().toString(), dataset.toString());
      Datasets.writeAtomically(rep, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(j) + "\n");
      PrintWriter o = spec.commandLine().getOut();
      if (json) {
        printJson(o, j);
      } else {
        PassStats st = r.stats();
        o.printf("%s on %s: %d puzzles x %d samples (%s)%n", model, dataset, st.puzzles(), k,
            r.mode() == LlmEval.NMode.N ? "n=" + k + " per request" : "seeds " + seed + "+i");
        o.printf("pass@1 %.4f  (95%% CI %.4f-%.4f, %s)  pass@%d %.4f  answer rate %.4f%n",
            st.pass1(), st.lo(), st.hi(), st.interval(), k, st.passK(), st.answerRate());
        o.printf("lower CI %.4f %s the 0.80 bar; %d requests, %d retries, %d puzzles resumed%n",
            st.lo(), st.lo() > 0.80 ? "clears" : "does not clear", r.requests(), r.retries(), r.resumed());
        o.printf("report: %s  partial results: %s%n", rep, partial);
        o.flush();
      }
      return 0;
    }

    private int agentEval() throws Exception {
      if (endpoint != null || model != null) throw new UserError("--agent evaluates a checkpoint; drop --endpoint/--model");
      List<Puzzle> ps = Datasets.read(dataset);
      if (limit != null) {
        if (limit < 1) throw new UserError("--limit must be at least 1");
        ps = ps.subList(0, Math.min(limit, ps.size()));
      }
      dev.speedrun.nn.PolicyNet net = dev.speedrun.nn.Policies.load(agent);
      long t0 = System.nanoTime();
      LlmEval.Report r = AgentEval.run(ps, net, k, seed, greedy);
      double secs = (System.nanoTime() - t0) / 1e9;
      ObjectNode j = JSON.createObjectNode();
      j.put("agent", agent.toString()).put("dataset", dataset.toString()).put("k", k).put("seed", seed)
          .put("actions", greedy ? "greedy" : "sampled").put("max_steps", AgentEval.MAX_STEPS)
          .put("seconds", secs);
      LlmEval.figures(j, r, k);
      if (report != null) Datasets.writeAtomically(report, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(j) + "\n");
      PrintWriter o = spec.commandLine().getOut();
      if (json) {
        printJson(o, j);
      } else {
        PassStats st = r.stats();
        o.printf("agent %s on %s: %d puzzles x %d %s episodes (seed %d), %.1f s%n", agent, dataset,
            st.puzzles(), k, greedy ? "greedy" : "sampled", seed, secs);
        o.printf("pass@1 %.4f  (95%% CI %.4f-%.4f, %s)  pass@%d %.4f%n", st.pass1(), st.lo(), st.hi(),
            st.interval(), k, st.passK());
        o.printf("lower CI %.4f %s the 0.80 bar%n", st.lo(), st.lo() > 0.80 ? "clears" : "does not clear");
        o.flush();
      }
      return 0;
    }
  }

  @Command(name = "serve", mixinStandardHelpOptions = true,
      description = {"Serve the reward over HTTP+JSON (POST /score, /score/batch, /episodes; GET /health).",
          "Binds 127.0.0.1 by default. Runs until interrupted."})
  static final class Serve implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--port", defaultValue = "8765", description = "Port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--dataset", description = "Dataset JSONL, so requests can name puzzles by index.")
    Path dataset;

    @Option(names = "--threads", defaultValue = "4", description = "Request threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Override
    public Integer call() throws Exception {
      if (port < 0 || port > 65535) throw new UserError("--port must be in 0..65535");
      if (threads < 1) throw new UserError("--threads must be at least 1");
      List<Puzzle> ps = dataset == null ? List.of() : Datasets.read(dataset);
      RewardService svc;
      try {
        svc = new RewardService(host, port, ps, RewardService.Limits.DEFAULT, threads);
      } catch (java.io.IOException e) {
        throw new UserError("cannot listen on " + host + ":" + port + ": " + e.getMessage());
      }
      PrintWriter o = spec.commandLine().getOut();
      o.printf("reward service on http://%s:%d (%d puzzles%s); Ctrl-C stops it%n", host, svc.port(), ps.size(),
          dataset == null ? "" : " from " + dataset);
      o.flush();
      Runtime.getRuntime().addShutdownHook(new Thread(svc::close));
      Thread.currentThread().join();
      return 0;
    }
  }

  @Command(name = "score", mixinStandardHelpOptions = true,
      description = "Score a JSONL file of completions ({\"index\": row, \"completion\": text}) with the binary reward.")
  static final class Score implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--dataset", required = true, description = "Dataset JSONL (question, answer, metadata).")
    Path dataset;

    @Option(names = "--completions", required = true, description = "Completions JSONL.")
    Path completions;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      List<Puzzle> puzzles = Datasets.read(dataset);
      List<Completions.Completion> cs = Completions.read(completions, puzzles.size());
      PrintWriter out = spec.commandLine().getOut();
      ObjectNode root = JSON.createObjectNode();
      ArrayNode arr = JSON.createArrayNode();
      double sum = 0;
      int answered = 0;
      for (Completions.Completion c : cs) {
        Reward.Result r = Reward.score(puzzles.get(c.index()).level(), c.completion());
        sum += r.reward();
        if (r.answered()) answered++;
        if (json) {
          arr.addObject().put("index", c.index()).put("reward", r.reward())
              .put("answered", r.answered()).put("moves", r.moves());
        } else {
          out.printf("row %d  reward %.0f  %s%n", c.index(), r.reward(),
              r.answered() ? "moves " + (r.moves().isEmpty() ? "(none)" : r.moves()) : "no answer");
        }
      }
      double mean = sum / cs.size();
      double rate = (double) answered / cs.size();
      if (json) {
        root.put("dataset", dataset.toString()).put("completions", completions.toString());
        root.put("count", cs.size()).put("mean_reward", mean).put("answer_rate", rate);
        root.set("results", arr);
        printJson(out, root);
      } else {
        out.printf("mean reward %.4f over %d completions; answer rate %.4f%n", mean, cs.size(), rate);
        out.flush();
      }
      return 0;
    }
  }
}
