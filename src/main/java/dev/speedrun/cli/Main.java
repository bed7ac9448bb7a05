package dev.speedrun.cli;

import dev.speedrun.UserError;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

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

      TrainCommand.class, // area train: train, bench train

      EvalCommand.class, RecordCommand.class, LeaderboardCommand.class, // area eval

      LlmCommand.class, // area llm

      PlayCommand.class, // area play

    })
public final class Main implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    return MainJob.run();
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          Throwable t = ex;
          while (t != null && !(t instanceof UserError) && t.getCause() != null && t.getCause() != t) {
            if (t instanceof UserError) break;
            t = t.getCause();
          }
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
