package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.sokoban.LevelStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun levels}: where levels are found, what splits they hold; {@code levels download}. */
@Command(name = "levels", mixinStandardHelpOptions = true,
    description = {"Lists where Boxoban levels are looked for and the splits found (levels per split).",
        "Lookup order: --levels DIR, $SOKOBAN_LEVELS, ../shared/data/boxoban, the cache directory."},
    subcommands = {LevelsCommand.Download.class})
public final class LevelsCommand implements Callable<Integer> {
  private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = new com.fasterxml.jackson.databind.ObjectMapper();

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root (holding unfiltered/train etc.).")
  String levels;

  @Option(names = "--count", description = "Also load each split and count its levels (uses the cache).")
  boolean count;

  @Option(names = "--json", description = "Machine-readable output.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    List<Map<String, Object>> places = new ArrayList<>();
    for (LevelSources.Candidate c : LevelSources.candidates(levels)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("origin", c.origin());
      m.put("dir", c.dir().toString());
      m.put("exists", c.exists());
      places.add(m);
    }
    Path root;
    try {
      root = LevelSources.root(levels);
    } catch (UserError e) {
      if (json) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("looked_in", places);
        out.put("error", e.getMessage());
        System.out.println(MAPPER.writeValueAsString(out));
      } else {
        for (Map<String, Object> m : places) System.out.printf("  %-12s %s%n", m.get("origin"), m.get("dir"));
      }
      throw e;
    }
    List<Map<String, Object>> splits = new ArrayList<>();
    for (String s : LevelSources.splits(root)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("split", s);
      if (count) {
        LevelStore st = LevelSources.split(levels, s);
        m.put("files", st.fileCount());
        m.put("levels", st.size());
      }
      splits.add(m);
    }
    if (json) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("looked_in", places);
      out.put("root", root.toString());
      out.put("splits", splits);
      System.out.println(MAPPER.writeValueAsString(out));
      return 0;
    }
    System.out.println("looked in (in order):");
    for (Map<String, Object> m : places) {
      System.out.printf("  %-12s %s%s%n", m.get("origin"), m.get("dir"), (Boolean) m.get("exists") ? "" : "  (absent)");
    }
    System.out.println("levels root: " + root);
    for (Map<String, Object> m : splits) {
      System.out.println("  " + m.get("split") + (count ? "  " + m.get("files") + " files, " + m.get("levels") + " levels" : ""));
    }
    return 0;
  }

  @Command(name = "download", mixinStandardHelpOptions = true,
      description = "Downloads the official Boxoban archive (GitHub) into the cache directory.")
  static final class Download implements Callable<Integer> {
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5", description = "Connect timeout (default ${DEFAULT-VALUE}).")
    int timeout;

    @Override
    public Integer call() {
      Path root = LevelSources.download(LevelSources.cacheDir(), Duration.ofSeconds(timeout));
      System.out.println("downloaded the Boxoban levels to " + root);
      return 0;
    }
  }
}
