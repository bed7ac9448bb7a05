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

  /** The Boxoban levels folder: ../shared/data/boxoban beside the repository (or a worktree's ancestor). */
  static Path boxoban() {
    Path shared = dev.speedrun.sokoban.LevelSources.sharedDir();
    if (shared == null) throw new IllegalStateException("no shared data folder beside the repository (see speedrun.shared)");
    return shared.resolve("data").resolve("boxoban");
  }

  /** The repository root (Maven runs tests there). */
  static Path repo() {
    return Path.of("").toAbsolutePath();
  }
}
