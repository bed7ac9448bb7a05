package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.llm.Completions;
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
    subcommands = {LlmCommand.Score.class})
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
