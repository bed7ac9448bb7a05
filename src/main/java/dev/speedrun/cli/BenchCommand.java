package dev.speedrun.cli;

import picocli.CommandLine.Command;

/** {@code ./speedrun bench ...}: benchmarks are commands that print figures, never tests. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks (figures printed, also as JSON with --json).",
    subcommands = {
      // Each area registers its benchmark on its own line below (keeps merges clean).
      BenchEnvCommand.class, // area foundation: bench env
      BenchNnCommand.class, // area nn: bench nn
      BenchTrainCommand.class, // area train: bench train
    })
public final class BenchCommand {}
