package dev.speedrun.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./speedrun bench AREA}: benchmarks as commands (never tests). Each area adds its line. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks: print figures (add --json for machine-readable output).",
    subcommands = {
      CommandLine.HelpCommand.class,
      BenchNnCommand.class, // area nn
      // area foundation: bench env
      // area train: bench train
    })
public final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
