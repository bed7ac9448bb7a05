package dev.speedrun.record;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a run stands, read from its files alone (run.json, metrics.jsonl or its kept .gz, the latest
 * checkpoint, summary.json, eval.json): for the long runs that train in the background.
 *
 * @param state       finished, training (its log was written in the last {@link #ACTIVE}), stopped
 *                    (resumable), or kept (a {@code ./speedrun keep} copy)
 * @param logAgeSeconds seconds since log.txt was last written (NaN for a kept run)
 * @param pace        env steps per second of training clock over the last {@link #PACE_WINDOW_S} of clock (NaN if unknown)
 * @param vals        (step, validation solve rate) pairs, in order
 * @param testScore   pass@1 of eval.json in the run directory, if there is one (NaN otherwise)
 * @param forkedFrom  for a run made by {@code train --fork}: its parent, checkpoint, step and changes (else null)
 * @param checkpointMachine the machine the latest checkpoint's meta.json names (null before checkpoints named it)
 * @param checkpointVectorBits its vector width (0 if unknown): a resume on another width is refused without
 *                    {@code --allow-vector-change}
 */
public record RunStatus(Path dir, String state, double logAgeSeconds, long seed, boolean overridden, String overrides,
    long iteration, long iterations, long steps, long totalSteps, double clockSeconds, double pace, double trainSolve,
    List<double[]> vals, double stopValSolveRate, String checkpoint, double testScore, double testLower, String forkedFrom,
    String checkpointMachine, int checkpointVectorBits) {
  public static final Duration ACTIVE = Duration.ofMinutes(2);
  public static final double PACE_WINDOW_S = 600;

  public static RunStatus read(Path dir) {
    if (!Files.isDirectory(dir)) throw new UserError(dir + ": no such run directory");
    if (!Files.isRegularFile(dir.resolve("run.json"))) throw new UserError(dir + " is not a run directory (no run.json)");
    JsonNode run = RunDir.readJson(dir.resolve("run.json"));
    JsonNode recipe = run.path("recipe");
    long numEnvs = recipe.path("numEnvs").asLong(0), horizon = recipe.path("horizon").asLong(0);
    long totalSteps = recipe.path("totalSteps").asLong(0);
    long iterations = numEnvs * horizon > 0 ? (totalSteps + numEnvs * horizon - 1) / (numEnvs * horizon) : 0; // as Recipe.iterations()
    boolean kept = !Files.isRegularFile(dir.resolve("log.txt")) && Files.isRegularFile(dir.resolve("log.txt.gz"));
    Path metricsFile = Files.isRegularFile(dir.resolve("metrics.jsonl")) ? dir.resolve("metrics.jsonl") : dir.resolve("metrics.jsonl.gz");
    List<JsonNode> rows = RunDir.readMetrics(metricsFile);

    long iteration = 0, steps = 0;
    double clock = 0, trainSolve = Double.NaN;
    List<double[]> vals = new ArrayList<>();
    for (JsonNode r : rows) {
      JsonNode v = r.get("val/solve_rate");
      if (v != null && v.isNumber()) vals.add(new double[] {r.path("global_step").asDouble(), v.asDouble()});
    }
    if (!rows.isEmpty()) {
      JsonNode last = rows.get(rows.size() - 1);
      iteration = last.path("iteration").asLong();
      steps = last.path("global_step").asLong();
      clock = last.path("time/wall_clock_s").asDouble();
      trainSolve = last.path("charts/solve_rate").asDouble(Double.NaN);
    }
    double pace = Double.NaN;
    for (int i = rows.size() - 1; i >= 0; i--) { // the oldest row within the window
      double c = rows.get(i).path("time/wall_clock_s").asDouble();
      if (clock - c > PACE_WINDOW_S || i == 0) {
        if (clock > c) pace = (steps - rows.get(i).path("global_step").asDouble()) / (clock - c);
        break;
      }
    }

    boolean finished = Files.isRegularFile(dir.resolve("summary.json"));
    if (finished) {
      JsonNode s = RunDir.readJson(dir.resolve("summary.json"));
      clock = s.path("train_seconds").asDouble(clock);
      steps = s.path("steps").asLong(steps);
    }
    double logAge = Double.NaN;
    String state;
    if (finished) state = "finished";
    else if (kept) state = "kept";
    else {
      try {
        logAge = Duration.between(Files.getLastModifiedTime(dir.resolve("log.txt")).toInstant(), Instant.now()).toMillis() / 1e3;
      } catch (IOException e) {
        throw new UserError("cannot read " + dir.resolve("log.txt") + ": " + e.getMessage());
      }
      state = logAge < ACTIVE.toSeconds() ? "training" : "stopped";
    }
    String checkpoint = null, ckMachine = null;
    int ckBits = 0;
    Path latest = dir.resolve("checkpoints/latest");
    if (Files.isRegularFile(latest)) {
      try {
        checkpoint = "checkpoints/" + Files.readString(latest).trim();
      } catch (IOException e) {
        throw new UserError("cannot read " + latest + ": " + e.getMessage());
      }
      Path meta = dir.resolve(checkpoint).resolve("meta.json");
      if (Files.isRegularFile(meta)) {
        JsonNode m = RunDir.readJson(meta);
        ckMachine = m.hasNonNull("machine") ? m.get("machine").asText() : null;
        ckBits = m.path("vector_bits").asInt(0);
      }
    }
    double test = Double.NaN, testLower = Double.NaN;
    if (Files.isRegularFile(dir.resolve("eval.json"))) {
      JsonNode e = RunDir.readJson(dir.resolve("eval.json"));
      test = e.path("pass_at_1").asDouble(Double.NaN);
      testLower = e.path("ci95_bootstrap").path("lo").asDouble(Double.NaN);
    }
    JsonNode f = run.path("forked_from");
    String forkedFrom = f.isObject() ? String.format(Locale.ROOT, "%s at %s (%.1fM steps) with %s", f.path("run").asText(),
        f.path("checkpoint").asText(), f.path("global_step").asDouble() / 1e6, f.path("set").toString()) : null;
    return new RunStatus(dir, state, logAge, run.path("seed").asLong(), run.path("overridden").asBoolean(),
        run.path("overrides").toString(), iteration, iterations, steps, totalSteps, clock, pace, trainSolve, vals,
        recipe.path("stopValSolveRate").asDouble(0), checkpoint, test, testLower, forkedFrom, ckMachine, ckBits);
  }

  /** A few lines for a terminal. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    String what = switch (state) {
      case "training" -> String.format(Locale.ROOT, "training (log written %.0f s ago)", logAgeSeconds);
      case "stopped" -> "stopped " + clock(logAgeSeconds) + " ago; continue with ./speedrun train --resume " + dir;
      case "kept" -> "kept; restore with ./speedrun keep --restore " + dir + " RUN";
      default -> "finished";
    };
    sb.append(dir).append(": ").append(what).append('\n');
    sb.append(String.format(Locale.ROOT, "  seed %d, %s%n", seed, overridden ? "overridden recipe " + overrides : "pinned recipe"));
    if (forkedFrom != null) sb.append("  a fork of ").append(forkedFrom).append('\n');
    sb.append(String.format(Locale.ROOT, "  iteration %,d / %,d, %.1fM / %.0fM steps (%.1f%%), training clock %s%n", iteration,
        iterations, steps / 1e6, totalSteps / 1e6, totalSteps > 0 ? 100.0 * steps / totalSteps : 0, clock(clockSeconds)));
    if (!state.equals("finished") && pace > 0) {
      sb.append(String.format(Locale.ROOT, "  pace %,.0f steps/s over the last %.0f min of clock; %s of clock to %.0fM at that pace%n",
          pace, PACE_WINDOW_S / 60, clock((totalSteps - steps) / pace), totalSteps / 1e6));
    }
    sb.append(String.format(Locale.ROOT, "  training solve rate %s", fmt(trainSolve)));
    if (!vals.isEmpty()) {
      double[] last = vals.get(vals.size() - 1), best = last;
      for (double[] v : vals) if (v[1] > best[1]) best = v;
      sb.append(String.format(Locale.ROOT, "; validation %.4f at %.1fM (best %.4f at %.1fM)", last[1], last[0] / 1e6, best[1],
          best[0] / 1e6));
      if (stopValSolveRate > 0) sb.append(String.format(Locale.ROOT, ", stops at %.2f", stopValSolveRate));
      sb.append('\n').append("  last validations:");
      for (int i = Math.max(0, vals.size() - 6); i < vals.size(); i++) {
        sb.append(String.format(Locale.ROOT, " %.3f@%.1fM", vals.get(i)[1], vals.get(i)[0] / 1e6));
      }
    }
    sb.append('\n');
    if (checkpoint != null) {
      sb.append("  latest checkpoint ").append(checkpoint);
      if (checkpointMachine != null) sb.append(", written on ").append(checkpointMachine);
      sb.append('\n');
      int here = dev.speedrun.rl.RunInfo.vectorBits();
      if (checkpointVectorBits > 0 && checkpointVectorBits != here && !state.equals("finished")) {
        sb.append(String.format(Locale.ROOT, "  this machine has %d-bit vectors, not %d: train --resume refuses here without "
            + "--allow-vector-change (the run would no longer be the one its seed gives)%n", here, checkpointVectorBits));
      }
    }
    if (!Double.isNaN(testScore)) {
      sb.append(String.format(Locale.ROOT, "  eval.json: pass@1 %.4f, lower 95%% bootstrap CI %.4f (%s the bar)%n", testScore,
          testLower, testLower > dev.speedrun.eval.EvalReport.BAR ? "above" : "not above"));
    }
    return sb.toString();
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
  }

  /** h:mm:ss. */
  static String clock(double seconds) {
    long s = Math.round(seconds);
    return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
}
