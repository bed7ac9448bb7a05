package dev.speedrun.cli;

import dev.speedrun.record.RunStatus;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./speedrun status RUN...}: where runs stand, from their files (for runs training in the background). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {
      "Where runs stand, read from their files alone: training, stopped (resumable), finished or kept; steps",
      "and training clock, recent pace and the clock left at it, training and validation solve rates, the",
      "latest checkpoint, and eval.json's score if the run has one."})
public final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "RUN", description = "Run directories (or kept runs).")
  List<Path> runs;

  @Override
  public Integer call() {
    PrintWriter pw = spec.commandLine().getOut();
    List<RunStatus> all = runs.stream().map(RunStatus::read).toList(); // all readable, or one error and nothing printed
    for (RunStatus s : all) pw.print(s.describe());
    pw.flush();
    return 0;
  }
}
