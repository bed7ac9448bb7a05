package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Generator;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.Solver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun generate}: Boxoban-style levels (gym-sokoban's procedure) as Boxoban text. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = {"Generates Boxoban-style levels (I2A / gym-sokoban procedure: random-walk room, targets and",
        "player on floor, reverse play pulling boxes, most scrambled state kept) and writes Boxoban text",
        "(; N headers). The same seed gives the same file, whatever the thread count."})
public final class GenerateCommand implements Callable<Integer> {
  @Option(names = "--count", defaultValue = "1000", description = "Levels to write (default ${DEFAULT-VALUE}).")
  int count;

  @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--first", defaultValue = "0", description = "Index of the first level of the seed's stream (default ${DEFAULT-VALUE}).")
  long first;

  @Option(names = "--size", defaultValue = "10x10", description = "Room size WxH including the wall border (default ${DEFAULT-VALUE}).")
  String sizeSpec;

  @Option(names = "--boxes", defaultValue = "4", description = "Boxes per level (default ${DEFAULT-VALUE}).")
  int boxes;

  @Option(names = "--verify", description = "Solve every level and fail if one is not solved (they are solvable by construction).")
  boolean verify;

  @Option(names = {"--out", "-o"}, paramLabel = "FILE", description = "Output file (written atomically); default standard output.")
  Path out;

  @Option(names = "--threads", defaultValue = "0", description = "Worker threads (default: all cores).")
  int threads;

  @Option(names = "--json", description = "Print a JSON summary (with --out).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (count < 1) throw new UserError("--count must be at least 1");
    String[] wh = sizeSpec.toLowerCase().split("x");
    Generator.Settings settings;
    try {
      if (wh.length != 2) throw new NumberFormatException();
      settings = Generator.Settings.of(Integer.parseInt(wh[0].trim()), Integer.parseInt(wh[1].trim()), boxes);
    } catch (NumberFormatException e) {
      throw new UserError("--size " + sizeSpec + ": expected WxH, e.g. 10x10");
    } catch (IllegalArgumentException e) {
      throw new UserError("--size " + sizeSpec + " --boxes " + boxes + ": " + e.getMessage());
    }
    int nThreads = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(nThreads);
    List<Level> levels = new ArrayList<>(count);
    int unsolved = 0;
    try {
      ThreadLocal<Generator> gens = ThreadLocal.withInitial(() -> new Generator(settings));
      List<Future<Level>> fs = new ArrayList<>();
      for (int k = 0; k < count; k++) {
        long index = first + k;
        fs.add(pool.submit(() -> {
          Level l = gens.get().generate(seed, index);
          if (verify && !new Solver(l).solve(5_000_000, 60_000).solved()) return null;
          return l;
        }));
      }
      for (int k = 0; k < count; k++) {
        Level l = fs.get(k).get();
        if (l == null) {
          unsolved++;
          l = gens.get().generate(seed, first + k);
        }
        levels.add(l);
      }
    } finally {
      pool.shutdownNow();
    }
    if (unsolved > 0) throw new UserError(unsolved + " generated levels were not solved within the limit (--verify)");
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < count; k++) sb.append("; ").append(first + k).append('\n').append(levels.get(k).toXsb()).append("\n\n");
    double secs = (System.nanoTime() - t0) / 1e9;
    if (out == null) {
      System.out.print(sb);
      System.out.flush();
      return 0;
    }
    writeAtomically(out, sb.toString());
    if (json) {
      ObjectNode o = new ObjectMapper().createObjectNode();
      o.put("file", out.toString());
      o.put("levels", count);
      o.put("seed", seed);
      o.put("size", settings.width() + "x" + settings.height());
      o.put("boxes", boxes);
      o.put("verified", verify);
      o.put("seconds", Math.round(secs * 1000) / 1000.0);
      System.out.println(new ObjectMapper().writeValueAsString(o));
    } else {
      System.out.printf("wrote %d levels (%dx%d, %d boxes, seed %d%s) to %s in %.1f s%n", count, settings.width(),
          settings.height(), boxes, seed, verify ? ", all solved" : "", out, secs);
    }
    return 0;
  }

  static void writeAtomically(Path file, String text) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UserError(file + ": cannot write the file (" + e.getMessage() + ")");
    }
  }

}
