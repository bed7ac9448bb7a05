package dev.speedrun.web;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Helpers shared by the web tests: external programs and the shared data folder. */
final class TestTools {
  private TestTools() {}

  /** The executable {@code name} on the PATH, if any. */
  static Optional<Path> which(String name) {
    String path = System.getenv("PATH");
    if (path == null) return Optional.empty();
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p) && Files.isRegularFile(p)) return Optional.of(p);
    }
    return Optional.empty();
  }

  /** The Boxoban levels folder (../shared/data/boxoban beside the repository, via speedrun.shared). */
  static Path boxoban() {
    String shared = System.getProperty("speedrun.shared", "../shared");
    Path p = Path.of(shared, "data", "boxoban").toAbsolutePath().normalize();
    String env = System.getenv("SOKOBAN_LEVELS"); // a work tree without ../shared beside it
    if (!Files.isDirectory(p) && env != null && Files.isDirectory(Path.of(env))) return Path.of(env);
    return p;
  }

  /** The repository root (Maven runs tests there). */
  static Path repo() {
    return Path.of("").toAbsolutePath();
  }
}
