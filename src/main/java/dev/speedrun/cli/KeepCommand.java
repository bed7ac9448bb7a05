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
      "replaces KEPT whole. Git ignores the checkpoint's trainer.bin (the resume state); with --portable it",
      "is gzipped to trainer.bin.gz, which git keeps, so the run resumes on any machine. With --restore,",
      "make a new run directory from KEPT, then ./speedrun train --resume RUN continues bit for bit."})
public final class KeepCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FROM", description = "The run directory (with --restore: the kept run).")
  Path from;

  @Parameters(index = "1", paramLabel = "TO", description = "The kept run to write (with --restore: a new run directory).")
  Path to;

  @Option(names = "--restore", description = "Restore a kept run into a new run directory.")
  boolean restore;

  @Option(names = "--portable", description = "Also keep the resume state, gzipped (trainer.bin.gz, tracked by git):"
      + " for the one long run that must survive the machine.")
  boolean portable;

  @Override
  public Integer call() throws Exception {
    PrintWriter pw = spec.commandLine().getOut();
    if (portable && restore) throw new dev.speedrun.UserError("--portable applies to keeping a run, not to --restore");
    if (restore) {
      KeptRun.restore(from, to);
      pw.printf("restored %s into %s (checkpoint %s); continue with ./speedrun train --resume %s%n", from, to,
          Checkpoints.latest(to).getFileName(), to);
    } else {
      KeptRun.keep(from, to, portable);
      pw.printf("kept %s in %s (checkpoint %s%s)%n", from, to, Checkpoints.latest(to).getFileName(),
          portable ? ", resume state packed in trainer.bin.gz" : "; its trainer.bin stays out of git");
    }
    pw.flush();
    return 0;
  }
}
