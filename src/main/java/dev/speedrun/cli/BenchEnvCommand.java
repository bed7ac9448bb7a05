package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.env.EnvBench;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun bench env}: environment steps per second. */
@Command(name = "env", mixinStandardHelpOptions = true,
    description = {"Environment steps/s with random actions (precomputed), observation written every step,",
        "auto-reset from unfiltered/train, for 1, 64 and 1024 environments on one thread and on all cores",
        "(each thread stepping its own environments). Also steps per CPU-second: the figure per core that",
        "other load on a shared machine does not distort."})
public final class BenchEnvCommand implements Callable<Integer> {
  @Option(names = "--seconds", defaultValue = "2", description = "Measured time per figure (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--split", defaultValue = "unfiltered/train", description = "Levels to reset from (default ${DEFAULT-VALUE}).")
  String split;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root.")
  String levels;

  @Option(names = "--envs", split = ",", defaultValue = "1,64,1024", description = "Environment counts (default ${DEFAULT-VALUE}).")
  int[] envs;

  @Option(names = "--threads", defaultValue = "0", description = "Thread count of the multi-core rows (default: all cores).")
  int threads;

  @Option(names = "--json", description = "Machine-readable output.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    LevelStore store = LevelSources.split(levels, split);
    double loadSec = (System.nanoTime() - t0) / 1e9;
    int cores = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
    ArrayNode rows = new ObjectMapper().createArrayNode();
    if (!json) {
      System.out.printf("levels: %s, %d levels, loaded in %.2f s; %d cores%n", split, store.size(), loadSec, cores);
      System.out.printf("%8s %8s %14s %18s %20s%n", "envs", "threads", "steps/s", "steps/s per thread", "steps per CPU-second");
    }
    for (int n : envs) {
      for (int th : cores > 1 ? new int[] {1, cores} : new int[] {1}) {
        // n environments in total, split over the threads (at least one each)
        int per = Math.max(1, n / th);
        EnvBench.Figure f = EnvBench.run(store, per, th, seconds, 42);
        ObjectNode o = rows.addObject();
        o.put("envs", per * th);
        o.put("threads", th);
        o.put("steps_per_second", Math.round(f.stepsPerSecond()));
        o.put("steps_per_second_per_thread", Math.round(f.stepsPerSecond() / th));
        o.put("steps_per_cpu_second", Math.round(f.stepsPerCpuSecond()));
        o.put("cpu_share", Math.round(f.cpuSeconds() / (f.seconds() * th) * 1000) / 1000.0);
        if (!json) {
          System.out.printf("%8d %8d %14.0f %18.0f %20.0f%n", per * th, th, f.stepsPerSecond(), f.stepsPerSecond() / th,
              f.stepsPerCpuSecond());
        }
      }
    }
    if (json) {
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("split", split);
      root.put("levels", store.size());
      root.put("load_seconds", Math.round(loadSec * 1000) / 1000.0);
      root.put("cores", cores);
      root.put("java", System.getProperty("java.version"));
      root.set("figures", rows);
      System.out.println(new ObjectMapper().writeValueAsString(root));
    }
    return 0;
  }
}
