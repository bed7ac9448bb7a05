package dev.speedrun.cli;

import dev.speedrun.record.RunPlot;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./speedrun plot RUN...}: a metric of runs against the training clock (or steps), as a PNG. */
@Command(name = "plot", mixinStandardHelpOptions = true,
    description = {
      "Draw one metric of one or more runs (their metrics.jsonl; running runs too) against the training clock",
      "or env steps, as a PNG. A run may be given as LABEL=DIR; otherwise its folder name is the label."})
public final class PlotCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "RUN", description = "Run directories, optionally LABEL=DIR.")
  List<String> runs;

  @Option(names = "--metric", paramLabel = "KEY",
      description = "Metric key of metrics.jsonl, repeatable: one panel each (default val/solve_rate; e.g. charts/solve_rate, charts/target_rate, charts/episodic_return).")
  List<String> metrics = new ArrayList<>();

  @Option(names = "--x", defaultValue = "clock", description = "X axis: clock (training minutes) or steps (millions); default ${DEFAULT-VALUE}.")
  String x;

  @Option(names = "--title", description = "Chart title (default: the metric).")
  String title;

  @Option(names = "--out", defaultValue = "plot.png", description = "PNG to write (default ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    RunPlot.XAxis axis = RunPlot.XAxis.parse(x);
    List<RunPlot.Run> rs = runs.stream().map(RunPlot.Run::parse).toList();
    if (metrics.isEmpty()) metrics.add("val/solve_rate");
    int[][] counts = RunPlot.write(out, rs, metrics, axis, title);
    PrintWriter pw = spec.commandLine().getOut();
    for (int m = 0; m < metrics.size(); m++) {
      for (int i = 0; i < rs.size(); i++) pw.printf("%s: %d points of %s%n", rs.get(i).label(), counts[m][i], metrics.get(m));
    }
    pw.println("wrote " + out);
    pw.flush();
    return 0;
  }
}
