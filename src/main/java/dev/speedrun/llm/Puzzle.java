package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.sokoban.Level;
import java.util.Map;

/**
 * One row of an LLM-track dataset: the board ({@code question}), a gold move string
 * ({@code answer}) and the metadata, with the board parsed into {@link #level()}.
 *
 * @param line the 1-based line of the JSONL file it came from (0 when made in memory)
 */
public record Puzzle(String question, String answer, Metadata metadata, Level level, int line) {

  /**
   * The row's metadata. {@code difficulty}, {@code sourceIndex} and {@code sourceDataset} may be
   * null when a file lacks them; {@code extra} holds any other keys (e.g. {@code band},
   * {@code ref_moves}) in file order: kept on writing, otherwise ignored.
   */
  public record Metadata(String sourceDataset, Integer sourceIndex, String gamestr, int width,
      int height, JsonNode difficulty, Map<String, JsonNode> extra) {
    public Metadata {
      extra = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extra));
    }
  }

  /** A puzzle for {@code level} with metadata in the benchmark's form. */
  public static Puzzle of(Level level, String answer, String sourceDataset, int sourceIndex,
      JsonNode difficulty, Map<String, JsonNode> extra) {
    return new Puzzle(LlmBoard.question(level), answer,
        new Metadata(sourceDataset, sourceIndex, LlmBoard.gamestr(level), level.width(),
            level.height(), difficulty, extra), level, 0);
  }
}
