package dev.speedrun.cli;

import dev.speedrun.UserError;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code ./speedrun} command line. One subcommand per verb; each is thin: parse, call, print.
 * With no arguments it runs the main job (see {@link MainJob}).
 */
@Command(
    name = "speedrun",
    mixinStandardHelpOptions = true,
    version = "speedrun 0.1.0",
    description = "Sokoban RL speedrun in Java. With no arguments: run the main job.",
    subcommands = {
      CommandLine.HelpCommand.class,
      // Each area registers its commands on its own line below (keeps merges clean).

      LevelsCommand.class, ReplayCommand.class, SolveCommand.class, GenerateCommand.class, BenchCommand.class, // area foundation: replay, solve, generate, levels, bench env

      // area nn: bench nn

      TrainCommand.class, KeepCommand.class, StatusCommand.class, // area train: train, keep, status, bench train

      EvalCommand.class, RecordCommand.class, LeaderboardCommand.class, PlotCommand.class, CompareCommand.class, // area eval

      LlmCommand.class, // area llm

      PlayCommand.class, // area play

    })
public final class Main implements Callable<Integer> {
  @Option(names = "--seed", defaultValue = "42", description = "Main job: seed (default ${DEFAULT-VALUE}; a record also needs 43).")
  long seed;

  @Option(names = "--levels", paramLabel = "DIR", description = "Main job: Boxoban levels root (else SOKOBAN_LEVELS, ../shared/data/boxoban, cache).")
  String levels;

  @Option(names = "--out", paramLabel = "DIR", description = "Main job: run directory (default runs/main-seed<S>-<date>).")
  java.nio.file.Path out;

  @Option(names = "--threads", description = "Main job: threads (default: all cores).")
  Integer threads;

  @Override
  public Integer call() throws Exception {
    int th = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    return MainJob.run(seed, levels, out, th, System.out);
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          Throwable t = ex; // a UserError may arrive wrapped (e.g. by a worker thread)
          while (!(t instanceof UserError) && t.getCause() != null && t.getCause() != t) t = t.getCause();
          if (t instanceof UserError) {
            commandLine.getErr().println("error: " + t.getMessage());
            return 2;
          }
          if (ex instanceof java.io.IOException io) {
            commandLine.getErr().println("error: " + io.getMessage());
            return 2;
          }
          throw ex;
        });
    return cl;
  }

  public static void main(String[] args) {
    int code = commandLine().execute(args);
    System.exit(code);
  }
}
