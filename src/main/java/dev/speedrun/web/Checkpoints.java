package dev.speedrun.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The checkpoints the page may load: {@code *.safetensors} files under {@code runs/} (e.g.
 * {@code runs/RUN/checkpoints/it-000050/policy.safetensors}) and {@code records/} (e.g.
 * {@code records/NAME/policy.safetensors}) of the repository root; folders whose names start with a
 * dot (checkpoints being written) are skipped. A request names a checkpoint by its path relative to the root, and only a name
 * from {@link #list()} is accepted, so no request reaches a file outside those folders (symbolic
 * links that lead outside are refused too).
 */
public final class Checkpoints {
  public static final List<String> FOLDERS = List.of("runs", "records");
  public static final List<String> EXTENSIONS = List.of(".safetensors", ".ckpt");
  static final int MAX_DEPTH = 6, MAX_FILES = 2000;

  private final Path root;

  public Checkpoints(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /** Checkpoint names (relative to the root, '/'-separated), sorted. */
  public List<String> list() {
    List<String> out = new ArrayList<>();
    for (String folder : FOLDERS) {
      Path dir = root.resolve(folder);
      if (!Files.isDirectory(dir)) continue;
      try (Stream<Path> s = Files.walk(dir, MAX_DEPTH)) {
        s.filter(Files::isRegularFile)
            .filter(p -> EXTENSIONS.stream().anyMatch(e -> p.getFileName().toString().endsWith(e)))
            .filter(p -> !hidden(root.relativize(p))) // e.g. .tmp-it-000050: a checkpoint being written
            .filter(this::inside)
            .limit(MAX_FILES)
            .forEach(p -> out.add(root.relativize(p).toString().replace('\\', '/')));
      } catch (IOException | java.io.UncheckedIOException e) {
        // an unreadable folder lists nothing
      }
    }
    out.sort(null);
    return out;
  }

  private static boolean hidden(Path relative) {
    for (Path part : relative) if (part.toString().startsWith(".")) return true;
    return false;
  }

  private boolean inside(Path p) {
    try {
      Path real = p.toRealPath();
      for (String folder : FOLDERS) {
        Path dir = root.resolve(folder);
        if (Files.isDirectory(dir) && real.startsWith(dir.toRealPath())) return true;
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** The file of a listed checkpoint; 400 for a name that is not one. */
  public Path resolve(String name) {
    if (name == null || name.isBlank()) throw HttpError.badRequest("no checkpoint chosen");
    if (name.length() > 500) throw HttpError.badRequest("checkpoint name is longer than 500 characters");
    if (!list().contains(name)) {
      throw HttpError.badRequest("'" + LevelLibrary.abbreviate(name) + "' is not a checkpoint under "
          + String.join("/ or ", FOLDERS) + "/ (see /api/checkpoints)");
    }
    return root.resolve(name);
  }
}
