package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import dev.speedrun.sokoban.Solver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./speedrun solve}: A* over pushes on one level, a few, or a whole split. */
@Command(name = "solve", mixinStandardHelpOptions = true,
    description = {"Solves levels (A* over pushes, dead-square and freeze deadlock pruning, matching heuristic)",
        "and prints a U/D/L/R move string per level, verified by replay. Levels: files, FILE#N, addresses",
        "like unfiltered/test/000.txt#17, or a whole split with --split."})
public final class SolveCommand implements Callable<Integer> {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Parameters(paramLabel = "LEVEL", arity = "0..*", description = "Level files, FILE#N or split addresses.")
  List<String> specs = new ArrayList<>();

  @Option(names = "--split", paramLabel = "SPLIT", description = "Solve every level of a split, e.g. unfiltered/test.")
  String split;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root.")
  String levels;

  @Option(names = "--format", paramLabel = "FMT", description = "Format of level files: xsb, boxoban, rg (default: file type).")
  String format;

  @Option(names = "--time-limit", paramLabel = "SECONDS", defaultValue = "20", description = "Per-level time limit (default ${DEFAULT-VALUE}).")
  double timeLimit;

  @Option(names = "--max-nodes", defaultValue = "5000000", description = "Per-level expansion limit (default ${DEFAULT-VALUE}).")
  long maxNodes;

  @Option(names = "--weight", defaultValue = "1", description = "Heuristic weight; 1 gives fewest pushes, more is greedier (default ${DEFAULT-VALUE}).")
  double weight;

  @Option(names = "--threads", defaultValue = "0", description = "Worker threads (default: all cores).")
  int threads;

  @Option(names = "--quiet", description = "Only the summary (with --split).")
  boolean quiet;

  @Option(names = "--json", description = "Machine-readable output.")
  boolean json;

  record Item(String name, Level level) {}

  record Outcome(Item item, Solver.Result result) {}

  @Override
  public Integer call() throws Exception {
    List<Item> items = new ArrayList<>();
    if (split != null) {
      LevelStore s = LevelSources.split(levels, split);
      for (int k = 0; k < s.size(); k++) items.add(new Item(s.address(k), s.level(k)));
    }
    Formats.Format fmt = format == null ? null : Formats.Format.of(format);
    for (String spec : specs) items.add(new Item(spec, LevelSources.level(spec, levels, fmt)));
    if (items.isEmpty()) throw new UserError("give levels to solve (files, FILE#N, addresses) or --split SPLIT");
    if (timeLimit <= 0) throw new UserError("--time-limit must be positive");
    int nThreads = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
    long limitMs = (long) (timeLimit * 1000);
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(nThreads);
    List<Future<Outcome>> futures = new ArrayList<>();
    try {
      for (Item it : items) {
        futures.add(pool.submit(() -> new Outcome(it, new Solver(it.level(), weight).solve(maxNodes, limitMs))));
      }
      List<Outcome> outs = new ArrayList<>();
      int solved = 0;
      long sumMs = 0, maxMs = 0;
      ArrayNode arr = MAPPER.createArrayNode();
      for (Future<Outcome> f : futures) {
        Outcome o = f.get();
        outs.add(o);
        Solver.Result r = o.result();
        if (r.solved()) {
          if (!new Game(o.item().level()).play(r.moves()).isSolved()) {
            throw new IllegalStateException("solver bug: the solution of " + o.item().name() + " does not replay to solved");
          }
          solved++;
        }
        sumMs += r.millis();
        maxMs = Math.max(maxMs, r.millis());
        if (json) {
          ObjectNode n = arr.addObject();
          n.put("level", o.item().name());
          n.put("status", r.status().name().toLowerCase());
          if (r.solved()) {
            n.put("moves", r.moves());
            n.put("pushes", r.pushes());
          }
          n.put("expanded", r.expanded());
          n.put("millis", r.millis());
        } else if (split == null || !quiet) {
          System.out.println(o.item().name() + "\t" + r.status().name().toLowerCase() + "\t"
              + (r.solved() ? r.pushes() + " pushes\t" + r.moves().length() + " moves\t" + r.moves() : "-")
              + "\t" + r.expanded() + " nodes\t" + r.millis() + " ms");
        }
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      if (json) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("solved", solved);
        root.put("total", items.size());
        root.put("wall_seconds", Math.round(wall * 1000) / 1000.0);
        root.put("sum_level_seconds", sumMs / 1000.0);
        root.put("max_level_seconds", maxMs / 1000.0);
        root.put("threads", nThreads);
        root.put("time_limit_seconds", timeLimit);
        root.set("levels", arr);
        System.out.println(MAPPER.writeValueAsString(root));
      } else if (items.size() > 1) {
        System.out.printf("solved %d/%d in %.1f s wall (%d threads; per level: sum %.1f s, max %.2f s, limit %.0f s)%n",
            solved, items.size(), wall, nThreads, sumMs / 1000.0, maxMs / 1000.0, timeLimit);
      }
      return solved == items.size() ? 0 : 1;
    } finally {
      pool.shutdownNow();
    }
  }
}
