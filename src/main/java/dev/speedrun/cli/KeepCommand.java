package dev.speedrun.cli;

import dev.speedrun.rl.Checkpoints;
import dev.speedrun.rl.KeptRun;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./speedrun keep RUN KEPT} and {@code ./speedrun keep --restore KEPT RUN}: a run carried across machines. */
@Command(name = "keep", mixinStandardHelpOptions = true,
    description = {
      "Keep a long run resumable on another machine: copy its run.json, gzipped log and metrics, and its",
      "latest checkpoint whole (the least that train --resume needs) to KEPT, a folder to commit; it",
      "replaces KEPT whole. With --restore, make a new run directory from KEPT, then",
      "./speedrun train --resume RUN continues bit for bit from that checkpoint."})
public final class KeepCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FROM", description = "The run directory (with --restore: the kept run).")
  Path from;

  @Parameters(index = "1", paramLabel = "TO", description = "The kept run to write (with --restore: a new run directory).")
  Path to;

  @Option(names = "--restore", description = "Restore a kept run into a new run directory.")
  boolean restore;

  @Override
  public Integer call() throws Exception {
    PrintWriter pw = spec.commandLine().getOut();
    if (restore) {
      KeptRun.restore(from, to);
      pw.printf("restored %s into %s (checkpoint %s); continue with ./speedrun train --resume %s%n", from, to,
          Checkpoints.latest(to).getFileName(), to);
    } else {
      KeptRun.keep(from, to);
      pw.printf("kept %s in %s (checkpoint %s)%n", from, to, Checkpoints.latest(to).getFileName());
    }
    pw.flush();
    return 0;
  }
}
