package dev.speedrun.rl;

import dev.speedrun.UserError;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.llm.Datasets;
import dev.speedrun.llm.Puzzle;
import dev.speedrun.llm.TinySolver;
import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.nn.Workers;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code train --imitate DATASET.jsonl}: behaviour cloning ({@link Imitation}) of an LLM-track
 * dataset's gold answers before PPO. The dataset must be the one whose {@code --boxoban-out} file is
 * the recipe's {@code trainLevels} path (checked board by board); its last {@code valLevels} rows
 * are the run's validation puzzles and are not imitated. Timed from the first minibatch to the last
 * update; the run's clock is this plus the PPO clock. Writes {@code RUN/imitation.log}.
 */
public final class ImitationWarmStart {
  private ImitationWarmStart() {}

  public record Result(TrainingRun.Factory factory, double seconds, Imitation.Epoch last) {}

  /** DAgger settings: rounds, puzzles played per round, steps per played episode, epochs per round. */
  public record Dagger(int rounds, int puzzles, int maxSteps, int epochs) {
    public static final Dagger NONE = new Dagger(0, 0, 0, 0);
  }

  public static Result run(Path dataset, Recipe r, long seed, int threads, int epochs, float lr, int batch, Path runDir, PrintStream out)
      throws IOException {
    return run(dataset, r, seed, threads, epochs, lr, batch, Dagger.NONE, runDir, out);
  }

  public static Result run(Path dataset, Recipe r, long seed, int threads, int epochs, float lr, int batch, Dagger dagger, Path runDir,
      PrintStream out) throws IOException {
    if (!TrainingLevels.isPath(r.trainLevels())) {
      throw new UserError("--imitate needs the recipe's trainLevels to be the dataset's --boxoban-out file, not the split " + r.trainLevels());
    }
    if (epochs < 1 || batch < 1 || !(lr > 0)) throw new UserError("--imitate-epochs, --imitate-batch and --imitate-lr must be positive");
    List<Level> boards = TrainingLevels.readPath(Path.of(r.trainLevels()));
    List<Puzzle> rows = Datasets.read(dataset);
    if (rows.size() != boards.size()) {
      throw new UserError("--imitate " + dataset + ": " + rows.size() + " puzzles, but trainLevels " + r.trainLevels() + " has "
          + boards.size() + " levels; pass the dataset written together with it (llm dataset --out F --boxoban-out G)");
    }
    int n = boards.size() - r.valLevels();
    List<Level> levels = new ArrayList<>(n);
    List<String> moves = new ArrayList<>(n);
    List<int[]> sizes = new ArrayList<>(n);
    byte[] cells = new byte[100];
    for (int i = 0; i < n; i++) {
      Puzzle p = rows.get(i);
      LevelSampler.pad10(p.level(), cells, 0);
      Level padded = new Level(10, 10, cells.clone());
      if (!padded.equals(boards.get(i)) && !padded.toXsb().equals(boards.get(i).toXsb())) {
        throw new UserError("--imitate " + dataset + " line " + p.line() + ": the board differs from level " + i + " of " + r.trainLevels());
      }
      levels.add(padded);
      sizes.add(new int[] {p.level().width(), p.level().height()});
      moves.add(p.answer().replaceAll("[^UDLR]", ""));
    }
    PolicyNet net = Engine.policy(r, seed);
    Files.createDirectories(runDir);
    try (Workers workers = new Workers(threads);
        PrintStream log = new PrintStream(Files.newOutputStream(runDir.resolve("imitation.log")), true, StandardCharsets.UTF_8)) {
      if (net instanceof DefaultPolicy dp) dp.setWorkers(workers);
      Optimizer opt = Engine.optimizer(r, net);
      String head = String.format("imitation: %d solved puzzles of %s (%d held out), %d epochs, batch %d, lr %.3g cosine, seed %d, %d threads",
          n, dataset, r.valLevels(), epochs, batch, lr, seed, threads);
      out.println(head);
      log.println(head);
      long t0 = System.nanoTime();
      Imitation.Epoch last;
      last = Imitation.train(net, opt, levels, moves, epochs, batch, lr, r.valueCoef(), r.gamma(), r.maxGradNorm(), seed, e -> {
        String line = String.format("imitation: epoch %d loss %.4f accuracy %.4f (%d steps) clock %.1fs", e.epoch(), e.loss(),
            e.accuracy(), e.steps(), (System.nanoTime() - t0) / 1e9);
        out.println(line);
        log.println(line);
      });
      for (int round = 0; round < dagger.rounds(); round++) {
        last = daggerRound(net, opt, levels, moves, sizes, r, seed, round, dagger, batch, lr, t0, out, log);
      }
      double sec = (System.nanoTime() - t0) / 1e9;
      log.printf("imitation: done in %.1f s%n", sec);
      TrainingRun.Factory f = new TrainingRun.Factory() {
        @Override public PolicyNet policy(Recipe rr, long sd) { return net; }

        @Override public Optimizer optimizer(Recipe rr, PolicyNet nn) { return Engine.optimizer(rr, nn); }
      };
      return new Result(f, sec, last);
    }
  }

  private static final long DAGGER_SALT = 0x44414747L;

  /**
   * One DAgger round (Ross, Gordon and Bagnell 2011): the policy plays {@code dagger.puzzles()}
   * training puzzles (sampled actions, as the score does) for up to {@code dagger.maxSteps()} steps;
   * every position it reaches is labelled with the first move of a shortest solution from there
   * ({@link TinySolver} on the puzzle's own w x h board); steps from a position with no solution on
   * are not taught. The policy then trains on these trajectories together with as many gold answers.
   */
  private static Imitation.Epoch daggerRound(PolicyNet net, Optimizer opt, List<Level> levels, List<String> moves,
      List<int[]> sizes, Recipe r, long seed, int round, Dagger d, int batch, float lr, long t0, PrintStream out,
      PrintStream log) {
    int n = levels.size(), m = Math.min(d.puzzles(), n), steps = d.maxSteps();
    int[] idx = new int[m];
    for (int j = 0; j < m; j++) idx[j] = (int) (((long) round * m + j) % n);
    dev.speedrun.env.BoxobanEnv env = new dev.speedrun.env.BoxobanEnv(m, (e, ep) -> levels.get(idx[e]));
    env.reset();
    int a = net.numActions(), s = net.stateSize();
    float[] state = new float[m * s], logits = new float[m * a], values = new float[m];
    int[] act = new int[m], len = new int[m];
    int[][] played = new int[m][steps];
    Level[][] seen = new Level[m][steps];
    boolean[] done = new boolean[m];
    dev.speedrun.env.Rng[] rng = new dev.speedrun.env.Rng[m];
    for (int j = 0; j < m; j++) rng[j] = new dev.speedrun.env.Rng(dev.speedrun.env.Rng.mix(seed ^ DAGGER_SALT, round, j));
    for (int t = 0; t < steps; t++) {
      net.step(env.obs, m, state, logits, values);
      for (int j = 0; j < m; j++) {
        if (done[j]) {
          act[j] = 0;
          continue;
        }
        seen[j][t] = env.board(j);
        act[j] = dev.speedrun.nn.Categorical.sample(logits, j * a, a, rng[j].nextDouble());
        played[j][t] = act[j];
        len[j] = t + 1;
      }
      env.step(act);
      for (int j = 0; j < m; j++) if (!done[j] && env.dones[j]) done[j] = true;
    }
    // Label every reached position with a shortest solution's first move (in parallel; the result does not depend on order).
    int[][] targets = new int[m][];
    float[][] vts = new float[m][];
    int[] solvedPlays = new int[1];
    java.util.stream.IntStream.range(0, m).parallel().forEach(j -> {
      int w = sizes.get(idx[j])[0], h = sizes.get(idx[j])[1];
      targets[j] = new int[len[j]];
      vts[j] = new float[len[j]];
      java.util.Arrays.fill(targets[j], -1);
      java.util.Arrays.fill(vts[j], Float.NaN);
      for (int t = 0; t < len[j]; t++) {
        Level full = seen[j][t];
        byte[] c = new byte[w * h];
        for (int row = 0; row < h; row++) for (int col = 0; col < w; col++) c[row * w + col] = full.cell(row * 10 + col);
        TinySolver.Solution sol = TinySolver.solve(new Level(w, h, c), 50_000);
        if (sol.moves() == null || sol.moves().isEmpty()) break; // dead (or the budget ran out): nothing to teach from here on
        targets[j][t] = dev.speedrun.sokoban.Direction.ofLetter(sol.moves().charAt(0)).action();
        vts[j][t] = (float) Math.pow(r.gamma(), sol.moves().length() - 1);
      }
    });
    int labelled = 0, agree = 0;
    for (int j = 0; j < m; j++) {
      for (int t = 0; t < len[j]; t++) {
        if (targets[j][t] >= 0) {
          labelled++;
          if (targets[j][t] == played[j][t]) agree++;
        }
      }
    }
    int solvedCount = 0;
    for (int j = 0; j < m; j++) {
      dev.speedrun.sokoban.Game g = new dev.speedrun.sokoban.Game(levels.get(idx[j]));
      for (int t = 0; t < len[j]; t++) {
        var dir = dev.speedrun.sokoban.Direction.ofAction(played[j][t]);
        if (dir != null) g.move(dir);
      }
      if (g.isSolved()) solvedCount++;
    }
    // The round's data: the played trajectories with the solver's labels, plus as many gold answers (the next ones in order).
    List<Level> lv = new ArrayList<>(2 * m);
    int[][] pl = new int[2 * m][], tg = new int[2 * m][];
    float[][] vt = new float[2 * m][];
    for (int j = 0; j < m; j++) {
      lv.add(levels.get(idx[j]));
      pl[j] = java.util.Arrays.copyOf(played[j], len[j]);
      tg[j] = targets[j];
      vt[j] = vts[j];
    }
    for (int j = 0; j < m; j++) {
      int g = (int) (((long) (round + 1) * m + j + n / 2) % n);
      String mv = moves.get(g);
      int[] ga = new int[mv.length()];
      float[] gv = new float[mv.length()];
      for (int k = 0; k < ga.length; k++) {
        ga[k] = dev.speedrun.sokoban.Direction.ofLetter(mv.charAt(k)).action();
        gv[k] = (float) Math.pow(r.gamma(), ga.length - 1 - k);
      }
      lv.add(levels.get(g));
      pl[m + j] = ga;
      tg[m + j] = ga;
      vt[m + j] = gv;
    }
    String line = String.format("dagger: round %d: %d puzzles played (%d solved within %d steps), %d positions labelled, policy agreed on %.4f, clock %.1fs",
        round + 1, m, solvedCount, steps, labelled, (double) agree / Math.max(1, labelled), (System.nanoTime() - t0) / 1e9);
    out.println(line);
    log.println(line);
    int rr = round;
    return Imitation.train(net, opt, lv, pl, tg, vt, d.epochs(), batch, lr, r.valueCoef(), r.maxGradNorm(), seed + 1000 + round, e -> {
      String l2 = String.format("dagger: round %d epoch %d loss %.4f accuracy %.4f (%d steps) clock %.1fs", rr + 1, e.epoch(), e.loss(),
          e.accuracy(), e.steps(), (System.nanoTime() - t0) / 1e9);
      out.println(l2);
      log.println(l2);
    });
  }
}
