package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A JSONL file of model completions: {@code {"index": <dataset row>, "completion": "<text>"}}. */
public final class Completions {
  private Completions() {}

  /** One completion for dataset row {@code index} (0-based), from file line {@code line}. */
  public record Completion(int index, String completion, int line) {}

  /** Reads completions; every index must name a row of a dataset of {@code datasetSize} rows. */
  public static List<Completion> read(Path file, int datasetSize) {
    List<Completion> out = new ArrayList<>();
    Datasets.forEachLine(file, (line, no) -> {
      String where = file + " line " + no;
      JsonNode n = Datasets.parseJson(line, where);
      if (!n.isObject()) throw new UserError(where + ": expected a JSON object");
      int index = Datasets.integer(n, "index", where);
      if (index < 0 || index >= datasetSize) {
        throw new UserError(where + ": index " + index + " is not a dataset row (0.." + (datasetSize - 1) + ")");
      }
      out.add(new Completion(index, Datasets.text(n, "completion", where), no));
    });
    if (out.isEmpty()) throw new UserError(file + ": no completions");
    return out;
  }
}
