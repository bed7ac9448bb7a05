package dev.speedrun.rl;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;

/**
 * A branch of a run ({@code ./speedrun train --fork RUN --set K=V --out NEW}): a new run directory
 * that continues RUN's checkpoint under a recipe whose {@link #CHANGEABLE} fields differ, so that a
 * late-run change (a smaller entropy bonus from 100M steps on, say) is tried without paying for the
 * first 100M again.
 *
 * <pre>
 *   NEW/run.json                      RUN's seed, threads and level source; the changed recipe; overrides =
 *                                     RUN's plus the --set pairs; forked_from {run, checkpoint, iteration, global_step}
 *   NEW/metrics.jsonl                 RUN's rows up to the checkpoint (the shared history, for compare and plots)
 *   NEW/log.txt                       RUN's log, then a "fork:" line
 *   NEW/checkpoints/it-N/             RUN's checkpoint: the same policy and state, trainer.bin's recipe header
 *                                     rewritten to the new recipe (so --resume accepts it)
 * </pre>
 *
 * The fork keeps RUN's clock (meta.json's train_seconds): its time to a mark counts the parent's
 * training. A fork is always overridden (no record: no single recipe trained it). RUN may be a run
 * directory or a kept run (trainer.bin.gz, log.txt.gz, metrics.jsonl.gz); it is only read.
 */
public final class Fork {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Fields a fork may change: the loss coefficients, the optimizer's step and schedule, the run's
   * length and bookkeeping. None changes the shape or meaning of the checkpointed state (parameters,
   * Adam moments, environments, recurrent states, level-replay scores); the rest (rollout and
   * minibatch shapes, the policy, level sampling, sharding) would.
   */
  public static final Set<String> CHANGEABLE = new TreeSet<>(List.of(
      "totalSteps", "rewardClamp", "rewardScale", "gamma", "gaeLambda", "vtrace", "rhoBar", "cBar", "normAdvantages",
      "clipCoef", "clipValueLoss", "valueCoef", "entropyCoef", "entropyCoefEnd", "epochs",
      "learningRate", "lrSchedule", "warmupIterations", "weightDecay", "maxGradNorm",
      "valInterval", "checkpointInterval", "stopValSolveRate"));

  private Fork() {}

  /**
   * Makes run directory {@code out} (which must not exist) from checkpoint {@code at} of {@code src}
   * ({@code null}: its latest; else {@code it-001437} or {@code 1437}) with {@code sets} applied to
   * its recipe. Returns the new recipe.
   */
  public static Recipe create(Path src, String at, Map<String, String> sets, Path out) throws IOException {
    if (sets.isEmpty()) throw new UserError("--fork needs at least one --set (a fork with the same recipe is a copy: use ./speedrun keep)");
    TrainingRun.Stored st = TrainingRun.stored(src);
    if (st.recipe() == null) throw new UserError(src + "/run.json does not hold its recipe (a run from before recipes were stored); it cannot be forked");
    Recipe old = Recipe.fromStored(st.recipe());
    List<String> fixed = sets.keySet().stream().filter(k -> !CHANGEABLE.contains(k)).toList();
    if (!fixed.isEmpty()) {
      for (String k : fixed) if (!old.asMap().containsKey(k)) throw new UserError("--set " + k + ": no such recipe field");
      throw new UserError("--fork cannot change " + String.join(", ", fixed) + " (the checkpointed state depends on it); it can change "
          + String.join(", ", CHANGEABLE));
    }
    Recipe recipe = old.with(sets);
    if (recipe.equals(old)) throw new UserError("--set " + sets + " leaves " + src + "'s recipe as it is; a fork must change it");
    if (Files.exists(out)) throw new UserError(out + " exists already; fork into a new directory (nothing was written)");
    Path ck = checkpoint(src, at);
    byte[] state = Checkpoints.withRecipe(trainerState(ck), ck.resolve("trainer.bin"), st.seed(), old, recipe);
    Map<String, Object> meta = Checkpoints.meta(ck);
    long iteration = ((Number) meta.get("iteration")).longValue();
    long step = ((Number) meta.get("global_step")).longValue();

    Path tmp = out.toAbsolutePath().getParent().resolve(".tmp-" + out.getFileName());
    Checkpoints.deleteTree(tmp);
    Path cks = Files.createDirectories(Checkpoints.dir(tmp).resolve(ck.getFileName()));
    Files.write(cks.resolve("trainer.bin"), state);
    Files.copy(ck.resolve("policy.safetensors"), cks.resolve("policy.safetensors"));
    meta.put("overridden", true);
    Files.write(cks.resolve("meta.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(meta));
    Files.writeString(Checkpoints.dir(tmp).resolve("latest"), ck.getFileName() + "\n");

    Map<String, String> overrides = new LinkedHashMap<>(st.overrides());
    overrides.putAll(sets);
    Map<String, Object> from = new LinkedHashMap<>();
    from.put("run", src.toAbsolutePath().normalize().toString());
    from.put("checkpoint", ck.getFileName().toString());
    from.put("iteration", iteration);
    from.put("global_step", step);
    from.put("set", sets);
    Map<String, Object> rj = new LinkedHashMap<>();
    rj.put("seed", st.seed());
    rj.put("threads", st.threads());
    rj.put("overridden", true);
    rj.put("overrides", overrides);
    rj.put("levels", st.levels());
    rj.put("recipe", recipe.asMap());
    rj.put("forked_from", from);
    Files.write(tmp.resolve("run.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(rj));

    Files.writeString(tmp.resolve("metrics.jsonl"), TrainingRun.rowsUpTo(readText(src, "metrics.jsonl").lines().toList(), iteration));
    String log = readText(src, "log.txt");
    if (!log.isEmpty() && !log.endsWith("\n")) log += "\n";
    log += String.format("fork: from %s checkpoint %s (iteration %d, step %d) with %s; the lines above are the parent's%n",
        src, ck.getFileName(), iteration, step, sets);
    Files.writeString(tmp.resolve("log.txt"), log);
    Files.move(tmp, out);
    return recipe;
  }

  /** Checkpoint {@code at} of {@code src} (null: the latest). */
  private static Path checkpoint(Path src, String at) {
    if (at == null) return Checkpoints.latest(src);
    String name = at.matches("\\d+") ? String.format("it-%06d", Long.parseLong(at)) : at;
    Path ck = Checkpoints.dir(src).resolve(name);
    if (!name.matches("it-\\d{6,}") || !Files.isDirectory(ck)) {
      throw new UserError(src + " has no checkpoint " + at + " (checkpoints are named it-NNNNNN in " + Checkpoints.dir(src) + ")");
    }
    return ck;
  }

  /** The checkpoint's trainer.bin (or a kept run's trainer.bin.gz), whole. */
  private static byte[] trainerState(Path ck) throws IOException {
    Path plain = ck.resolve("trainer.bin"), packed = ck.resolve("trainer.bin.gz");
    if (Files.isRegularFile(plain)) return Files.readAllBytes(plain);
    if (Files.isRegularFile(packed)) {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(packed), 1 << 16)) {
        return in.readAllBytes();
      }
    }
    throw new UserError(ck + " has no trainer state (only the newest " + Checkpoints.KEEP_STATES
        + " checkpoints of a run keep trainer.bin); fork from one of those");
  }

  /** {@code dir/name}, or its gzipped {@code name.gz} (a kept run's), or "" if neither exists. */
  private static String readText(Path dir, String name) throws IOException {
    Path f = dir.resolve(name);
    if (Files.exists(f)) return Files.readString(f, StandardCharsets.UTF_8);
    if (!Files.exists(dir.resolve(name + ".gz"))) return "";
    try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve(name + ".gz")), 1 << 16)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
