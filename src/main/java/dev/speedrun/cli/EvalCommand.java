package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.eval.EvalReport;
import dev.speedrun.eval.Evaluator;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.eval.LevelSet;
import dev.speedrun.eval.Scoring;
import dev.speedrun.rl.Checkpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ./speedrun eval}: scores a checkpoint on every level of a split. */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = {
      "Score a checkpoint on every level of a split: greedy (argmax) play, 120 max steps, each level once.",
      "Prints pass@1, the 95%% percentile-bootstrap interval over levels (10,000 resamples, seed 12345),",
      "the Wilson interval, the level file and checkpoint hashes; --json adds every level's result.",
      "With --samples K > 1 plays a sampled policy K times per level (pass@1 over samples, and pass@K)."})
public final class EvalCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--checkpoint", required = true, paramLabel = "FILE", description = "Policy checkpoint: a .safetensors file, a checkpoint folder (runs/RUN/checkpoints/it-000050) or a run folder (its latest checkpoint).")
  Path checkpoint;

  @Option(names = "--split", defaultValue = "unfiltered/test",
      description = "Split to score, or one of its files (unfiltered/valid/000.txt: the levels training validates on); default ${DEFAULT-VALUE}.")
  String split;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban folder (holding unfiltered/); else SOKOBAN_LEVELS, ../shared/data/boxoban, the cache.")
  Path levels;

  @Option(names = "--threads", description = "Threads (default: the machine's cores).")
  Integer threads;

  @Option(names = "--samples", defaultValue = "1", description = "Samples per level; > 1 plays a sampled policy (default: ${DEFAULT-VALUE}).")
  int samples;

  @Option(names = "--temperature", defaultValue = "1.0", description = "Sampling temperature when --samples > 1 (default: ${DEFAULT-VALUE}).")
  double temperature;

  @Option(names = "--seed", defaultValue = "12345", description = "Seed of the sampling streams when --samples > 1 (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--out", paramLabel = "FILE", description = "Also write the JSON report to FILE (atomically).")
  Path out;

  @Option(names = "--json", description = "Print the JSON report (with per-level results) instead of the summary.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    checkpoint = policyFile(checkpoint);
    if (samples < 1) throw new UserError("--samples must be at least 1, got " + samples);
    if (samples > 1 && !(temperature > 0)) throw new UserError("--temperature must be > 0 for sampling, got " + temperature);
    int th = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (th < 1) throw new UserError("--threads must be at least 1, got " + th);
    LevelSet set = LevelSet.load(LevelSources.root(levels == null ? null : levels.toString()), split);
    Evaluator.Options o = samples == 1 ? new Evaluator.Options(1, 0, 0, th, 128) : new Evaluator.Options(samples, temperature, seed, th, 128);
    EvalReport r = Scoring.score(checkpoint, checkpoint.toString(), set, o);
    if (out != null) r.write(out);
    spec.commandLine().getOut().print(json ? r.toJsonString() : r.summary());
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** The policy file named by {@code p}: the file itself, a checkpoint folder's, or a run folder's latest. */
  static Path policyFile(Path p) {
    if (Files.isRegularFile(p)) return p;
    if (!Files.isDirectory(p)) throw new UserError("--checkpoint " + p + ": no such file or folder");
    if (Files.isRegularFile(p.resolve("policy.safetensors"))) return p.resolve("policy.safetensors");
    if (Files.isDirectory(p.resolve("checkpoints"))) return Checkpoints.latest(p).resolve("policy.safetensors");
    throw new UserError("--checkpoint " + p + ": a folder with neither policy.safetensors nor checkpoints/");
  }
}
