package dev.speedrun.eval;

import dev.speedrun.UserError;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the Boxoban folder (the one holding {@code unfiltered/}), in the project's lookup order:
 * {@code --levels DIR}, the {@code SOKOBAN_LEVELS} environment variable, {@code ../shared/data/boxoban}
 * beside the repository root (system property {@code speedrun.root}, else the working directory),
 * then the cache {@code ~/.cache/sokoban-speedrun/boxoban}.
 *
 * <p>Stand-in until the foundation's level locator lands; the lead may swap the call sites.
 */
public final class LevelRoot {
  private LevelRoot() {}

  public static Path locate(Path flag) {
    if (flag != null) {
      if (!Files.isDirectory(flag)) throw new UserError("--levels " + flag + ": no such folder");
      return flag;
    }
    String env = System.getenv("SOKOBAN_LEVELS");
    if (env != null && !env.isBlank()) {
      Path p = Path.of(env);
      if (!Files.isDirectory(p)) throw new UserError("SOKOBAN_LEVELS=" + env + ": no such folder");
      return p;
    }
    Path root = Path.of(System.getProperty("speedrun.root", "."));
    Path shared = root.resolve("../shared/data/boxoban").normalize();
    if (Files.isDirectory(shared)) return shared;
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "sokoban-speedrun", "boxoban");
    if (Files.isDirectory(cache)) return cache;
    throw new UserError("no Boxoban levels found: pass --levels DIR, set SOKOBAN_LEVELS, or place them in "
        + shared + " or " + cache);
  }
}
