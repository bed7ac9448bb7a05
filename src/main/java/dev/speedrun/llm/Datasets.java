package dev.speedrun.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.sokoban.Level;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes LLM-track JSONL: one object per line with {@code question}, {@code answer} and
 * {@code metadata} ({@code source_dataset}, {@code source_index}, {@code gamestr}, {@code width},
 * {@code height}, {@code difficulty}; other keys kept). A malformed row stops reading with one
 * sentence naming the file and the line. Blank lines are allowed and skipped.
 */
public final class Datasets {
  private Datasets() {}

  static final ObjectMapper JSON = new ObjectMapper();

  /** Reads a whole dataset file. */
  public static List<Puzzle> read(Path file) {
    List<Puzzle> out = new ArrayList<>();
    forEachLine(file, (line, no) -> out.add(parseRow(line, file.toString(), no)));
    if (out.isEmpty()) throw new UserError(file + ": no rows");
    return out;
  }

  /** Parses one JSONL row; {@code source} and {@code lineNo} are used in messages. */
  public static Puzzle parseRow(String line, String source, int lineNo) {
    String where = source + " line " + lineNo;
    JsonNode node = parseJson(line, where);
    if (!node.isObject()) throw new UserError(where + ": expected a JSON object");
    String question = text(node, "question", where);
    String answer = text(node, "answer", where);
    JsonNode meta = node.get("metadata");
    if (meta == null || !meta.isObject()) {
      throw new UserError(where + ": missing \"metadata\" object");
    }
    String mwhere = where + " metadata";
    String gamestr = text(meta, "gamestr", mwhere);
    int width = integer(meta, "width", mwhere);
    int height = integer(meta, "height", mwhere);
    Integer sourceIndex = meta.has("source_index") ? integer(meta, "source_index", mwhere) : null;
    String sourceDataset = meta.has("source_dataset") ? text(meta, "source_dataset", mwhere) : null;
    JsonNode difficulty = meta.get("difficulty");
    Map<String, JsonNode> extra = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
      var e = it.next();
      switch (e.getKey()) {
        case "gamestr", "width", "height", "source_index", "source_dataset", "difficulty" -> {}
        default -> extra.put(e.getKey(), e.getValue());
      }
    }
    Level level = LlmBoard.parse(question, where + " question");
    if (level.width() != width || level.height() != height) {
      throw new UserError(where + ": question is " + level.width() + "x" + level.height()
          + " but metadata says width " + width + ", height " + height);
    }
    Level fromGamestr = LlmBoard.parse(gamestr, mwhere + " gamestr");
    if (!fromGamestr.equals(level)) {
      throw new UserError(where + ": metadata gamestr is not the same board as question");
    }
    return new Puzzle(question, answer,
        new Puzzle.Metadata(sourceDataset, sourceIndex, gamestr, width, height, difficulty, extra),
        level, lineNo);
  }

  /** The JSON object of a puzzle, keys in the benchmark's order. */
  public static ObjectNode toJson(Puzzle p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("question", p.question());
    o.put("answer", p.answer());
    ObjectNode m = o.putObject("metadata");
    Puzzle.Metadata md = p.metadata();
    if (md.sourceDataset() != null) m.put("source_dataset", md.sourceDataset());
    if (md.sourceIndex() != null) m.put("source_index", md.sourceIndex());
    m.put("gamestr", md.gamestr());
    m.put("width", md.width());
    m.put("height", md.height());
    if (md.difficulty() != null) m.set("difficulty", md.difficulty());
    md.extra().forEach(m::set);
    return o;
  }

  /** Writes puzzles as JSONL, atomically (temp file + rename). */
  public static void write(Path file, List<Puzzle> puzzles) {
    StringBuilder sb = new StringBuilder();
    for (Puzzle p : puzzles) {
      try {
        sb.append(JSON.writeValueAsString(toJson(p))).append('\n');
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
    }
    writeAtomically(file, sb.toString());
  }

  /** Writes text to a file through a temp file in the same folder and a rename. */
  public static void writeAtomically(Path file, String text) {
    try {
      Path abs = file.toAbsolutePath();
      if (abs.getParent() != null) Files.createDirectories(abs.getParent());
      Path tmp = Files.createTempFile(abs.getParent(), abs.getFileName().toString(), ".tmp");
      try {
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UserError("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** A line callback: the line's text and its 1-based number. */
  interface LineHandler {
    void accept(String line, int lineNo);
  }

  /** Calls {@code h} for every non-blank line of a UTF-8 text file. */
  static void forEachLine(Path file, LineHandler h) {
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int no = 0;
      while ((line = r.readLine()) != null) {
        no++;
        if (!line.isBlank()) h.accept(line, no);
      }
    } catch (NoSuchFileException e) {
      throw new UserError(file + ": no such file");
    } catch (IOException e) {
      throw new UserError("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  static JsonNode parseJson(String text, String where) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UserError(where + ": not valid JSON (" + e.getOriginalMessage() + ")");
    }
  }

  static String text(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) throw new UserError(where + ": missing \"" + key + "\"");
    if (!v.isTextual()) throw new UserError(where + ": \"" + key + "\" must be a string");
    return v.asText();
  }

  static int integer(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) throw new UserError(where + ": missing \"" + key + "\"");
    if (!v.isInt()) throw new UserError(where + ": \"" + key + "\" must be an integer");
    return v.asInt();
  }
}
