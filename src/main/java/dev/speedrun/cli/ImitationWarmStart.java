package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.env.LevelSampler;
import dev.speedrun.llm.Datasets;
import dev.speedrun.llm.Puzzle;
import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.nn.Workers;
import dev.speedrun.rl.Engine;
import dev.speedrun.rl.Imitation;
import dev.speedrun.rl.Recipe;
import dev.speedrun.rl.TrainingLevels;
import dev.speedrun.rl.TrainingRun;
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
final class ImitationWarmStart {
  private ImitationWarmStart() {}

  record Result(TrainingRun.Factory factory, double seconds, Imitation.Epoch last) {}

  static Result run(Path dataset, Recipe r, long seed, int threads, int epochs, float lr, int batch, Path runDir, PrintStream out)
      throws IOException {
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
    byte[] cells = new byte[100];
    for (int i = 0; i < n; i++) {
      Puzzle p = rows.get(i);
      LevelSampler.pad10(p.level(), cells, 0);
      Level padded = new Level(10, 10, cells.clone());
      if (!padded.equals(boards.get(i)) && !padded.toXsb().equals(boards.get(i).toXsb())) {
        throw new UserError("--imitate " + dataset + " line " + p.line() + ": the board differs from level " + i + " of " + r.trainLevels());
      }
      levels.add(padded);
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
      Imitation.Epoch last = Imitation.train(net, opt, levels, moves, epochs, batch, lr, r.valueCoef(), r.gamma(), r.maxGradNorm(), seed, e -> {
        String line = String.format("imitation: epoch %d loss %.4f accuracy %.4f (%d steps) clock %.1fs", e.epoch(), e.loss(),
            e.accuracy(), e.steps(), (System.nanoTime() - t0) / 1e9);
        out.println(line);
        log.println(line);
      });
      double sec = (System.nanoTime() - t0) / 1e9;
      log.printf("imitation: done in %.1f s%n", sec);
      TrainingRun.Factory f = new TrainingRun.Factory() {
        @Override public PolicyNet policy(Recipe rr, long sd) { return net; }

        @Override public Optimizer optimizer(Recipe rr, PolicyNet nn) { return Engine.optimizer(rr, nn); }
      };
      return new Result(f, sec, last);
    }
  }
}
