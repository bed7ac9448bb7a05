package dev.speedrun.cli;

import dev.speedrun.record.RunCompare;
import dev.speedrun.record.RunPlot;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./speedrun compare RUN...}: runs side by side at equal steps (or clock), as a Markdown table. */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = {
      "Compare runs (their metrics.jsonl; running runs too) at equal env steps or equal training clock:",
      "for each mark, each metric's mean over the rows within +-window of it, and where each run stood on",
      "the other axis; a Markdown table. A run may be given as LABEL=DIR; otherwise its folder name is the label."})
public final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "RUN", description = "Run directories, optionally LABEL=DIR.")
  List<String> runs;

  @Option(names = "--metric", paramLabel = "KEY",
      description = "Metric key of metrics.jsonl, repeatable (default charts/solve_rate, charts/episodic_return, val/solve_rate).")
  List<String> metrics = new ArrayList<>();

  @Option(names = "--x", defaultValue = "steps", description = "Marks in: steps (millions) or clock (training minutes); default ${DEFAULT-VALUE}.")
  String x;

  @Option(names = "--at", split = ",", paramLabel = "MARK", description = "Marks, comma-separated (millions of steps or minutes), e.g. --at 20,40,60.")
  List<Double> at = new ArrayList<>();

  @Option(names = "--every", paramLabel = "STEP", description = "Without --at: a mark every STEP up to the longest run (default 10M steps or 15 minutes).")
  Double every;

  @Option(names = "--window", paramLabel = "W", description = "Half-width of the averaging window, in the marks' unit (default: half the marks' spacing).")
  Double window;

  @Option(names = "--reach", split = ",", paramLabel = "VALUE",
      description = {"When each run's first --metric (default charts/solve_rate), averaged over the last",
        "--window million steps (default 2), first reached each value, in steps and clock; e.g. --reach 0.05,0.1,0.2.",
        "With --at too, both tables are printed; without it, only this one."})
  List<Double> reach = new ArrayList<>();

  @Override
  public Integer call() {
    List<RunPlot.Run> rs = runs.stream().map(RunPlot.Run::parse).toList();
    StringBuilder markdown = new StringBuilder();
    if (!reach.isEmpty()) {
      String metric = metrics.isEmpty() ? "charts/solve_rate" : metrics.get(0);
      markdown.append(RunCompare.reach(rs, metric, reach.stream().mapToDouble(Double::doubleValue).toArray(), window).markdown());
    }
    if (reach.isEmpty() || !at.isEmpty()) {
      // --reach with --at prints both tables (the reach table's window is then the marks' one too)
      if (markdown.length() > 0) markdown.append('\n');
      List<String> ms = metrics.isEmpty() ? RunCompare.DEFAULT_METRICS : metrics;
      double[] marks = at.stream().mapToDouble(Double::doubleValue).toArray();
      markdown.append(RunCompare.compare(rs, ms, RunPlot.XAxis.parse(x), marks, every, window).markdown());
    }
    PrintWriter pw = spec.commandLine().getOut();
    pw.print(markdown);
    pw.flush();
    return 0;
  }
}
