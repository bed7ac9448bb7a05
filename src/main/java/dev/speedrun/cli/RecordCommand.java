package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.eval.LevelSet;
import dev.speedrun.eval.Scoring;
import dev.speedrun.record.RecordVerifier;
import dev.speedrun.record.Records;
import dev.speedrun.record.RunDir;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./speedrun record assemble|verify}. */
@Command(name = "record", mixinStandardHelpOptions = true,
    description = "Record directories: assemble one from a finished run, verify one.",
    subcommands = {RecordCommand.Assemble.class, RecordCommand.Verify.class})
public final class RecordCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static Path repoRoot() {
    return Path.of(System.getProperty("speedrun.root", ".")).toAbsolutePath().normalize();
  }

  @Command(name = "assemble", mixinStandardHelpOptions = true,
      description = {
        "Build records/<date>_<NN>_<name>/ from a finished run (README, log, metrics, eval JSON, final checkpoint,",
        "recipe, source snapshot at the run's revision, figures), or with --verify-of add the run as the record's",
        "second seed (verification/). Runs configured by --set overrides or on uncommitted code are refused.",
        "When RUN/eval.json is missing the run's final checkpoint is scored on unfiltered/test first."})
  static final class Assemble implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "RUN", description = "The finished run directory.")
    Path run;

    @Option(names = "--verify-of", paramLabel = "RECORD", description = "Add RUN as this record's verification seed.")
    Path verifyOf;

    @Option(names = "--name", defaultValue = "pinned", description = "Short name for the folder (default: ${DEFAULT-VALUE}).")
    String name;

    @Option(names = "--description", description = "One line for the leaderboard (default: the name).")
    String description;

    @Option(names = "--records", paramLabel = "DIR", description = "Records folder (default: records/ in the repository).")
    Path records;

    @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban folder, when RUN must be scored first.")
    Path levels;

    @Option(names = "--threads", description = "Threads for scoring (default: the machine's cores).")
    Integer threads;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      Path ev = run.resolve("eval.json");
      if (Files.isDirectory(run) && !Files.exists(ev)) {
        RunDir r = RunDir.read(run);
        Path ck = r.finalCheckpoint();
        out.println("scoring " + ck + " on " + LevelSet.TEST_SPLIT + " (no " + ev + " yet)...");
        out.flush();
        LevelSet set = LevelSet.load(LevelSources.root(levels == null ? null : levels.toString()), LevelSet.TEST_SPLIT);
        int th = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        EvalReport rep = Scoring.score(ck, run.relativize(ck).toString(), set, Evaluator.Options.greedy(th));
        rep.write(ev);
        out.print(rep.summary());
      }
      Path root = repoRoot();
      Path rec = Records.assemble(run, records != null ? records : root.resolve("records"), root, name, description, verifyOf);
      out.println((verifyOf != null ? "verification added to " : "record assembled: ") + rec);
      RecordVerifier.Report rep = RecordVerifier.verify(rec);
      out.print(rep.text());
      out.flush();
      return 0;
    }
  }

  @Command(name = "verify", mixinStandardHelpOptions = true,
      description = {
        "Check a record: recompute pass@1 and the intervals from the per-level arrays, check the level file's hash",
        "and that every test level was scored once, that the scored checkpoint is the one kept, that the recipe",
        "snapshot is the one in the logs, that the seeds are 42 and 43 and both lower CIs exceed 0.70;",
        "--rescore also plays each kept checkpoint again and compares every level's result.",
        "Exit status 1 when any check fails."})
  static final class Verify implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "RECORD", description = "The record folder.")
    Path record;

    @Option(names = "--json", description = "Print the checks as JSON.")
    boolean json;

    @Option(names = "--rescore", description = "Also re-score each kept checkpoint on unfiltered/test and require identical per-level results.")
    boolean rescore;

    @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban folder for --rescore.")
    Path levels;

    @Override
    public Integer call() throws Exception {
      if (!Files.isDirectory(record)) throw new UserError(record + ": no such record folder");
      LevelSet test = rescore ? LevelSet.load(LevelSources.root(levels == null ? null : levels.toString()), LevelSet.TEST_SPLIT) : null;
      RecordVerifier.Report rep = RecordVerifier.verify(record, test);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        var m = new com.fasterxml.jackson.databind.ObjectMapper();
        var j = m.createObjectNode();
        j.put("record", record.toString());
        j.put("passed", rep.passed());
        var arr = j.putArray("checks");
        for (RecordVerifier.Check c : rep.checks()) arr.addObject().put("check", c.what()).put("ok", c.ok()).put("detail", c.detail());
        out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(j));
      } else {
        out.print(rep.text());
      }
      out.flush();
      return rep.passed() ? 0 : 1;
    }
  }
}
