package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.llm.Completions;
import dev.speedrun.llm.PuzzleGenerator;
import dev.speedrun.llm.Prompt;
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
    subcommands = {LlmCommand.Dataset.class, LlmCommand.PromptCmd.class, LlmCommand.Score.class})
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
