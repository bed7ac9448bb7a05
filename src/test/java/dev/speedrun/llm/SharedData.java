package dev.speedrun.llm;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the shared data folder ({@code ../shared}) for tests; data is read in place. */
final class SharedData {
  private SharedData() {}

  /** The benchmark's 256 LLM-track eval puzzles. */
  static Path llmEval() {
    return find("data/speedrun-llm/sokoban_eval.jsonl");
  }

  static Path find(String rel) {
    String prop = System.getProperty("speedrun.shared");
    if (prop != null && Files.exists(Path.of(prop).resolve(rel))) return Path.of(prop).resolve(rel);
    // Work trees sit one level deeper than ../shared; walk up from the working directory.
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path p = d.resolve("shared").resolve(rel);
      if (Files.exists(p)) return p;
    }
    throw new IllegalStateException("shared data not found: " + rel + " (set -Dspeedrun.shared)");
  }
}
