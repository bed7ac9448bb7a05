package dev.speedrun.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.speedrun.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chat prompt for a puzzle, from a template file: JSON {@code {"messages": [{"role": ...,
 * "content": ...}, ...]}} whose contents may use the placeholders {@code {{board}}} (the board with
 * row and column labels), {@code {{question}}} (the board as in the dataset), {@code {{width}}},
 * {@code {{height}}} and {@code {{boxes}}}. The default template (a resource, {@code prompt.json})
 * states the rules and the answer format; a user replaces it with {@code --template FILE}.
 */
public final class Prompt {
  public static final String DEFAULT_RESOURCE = "prompt.json";
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]*)}}");
  private static final Set<String> NAMES = Set.of("board", "question", "width", "height", "boxes");
  private static final Set<String> ROLES = Set.of("system", "user", "assistant");

  /** One chat message. */
  public record Message(String role, String content) {}

  private final List<Message> template;

  private Prompt(List<Message> template) {
    this.template = template;
  }

  /** The default template. */
  public static Prompt defaults() {
    try (InputStream in = Prompt.class.getResourceAsStream(DEFAULT_RESOURCE)) {
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "built-in " + DEFAULT_RESOURCE);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A template from a file, or the default when {@code file} is null. */
  public static Prompt load(Path file) {
    if (file == null) return defaults();
    try {
      return parse(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new UserError("cannot read template " + file + ": " + e.getMessage(), e);
    }
  }

  /** Parses and checks a template; {@code source} names it in messages. */
  public static Prompt parse(String text, String source) {
    JsonNode root = Datasets.parseJson(text, "template " + source);
    JsonNode msgs = root.get("messages");
    if (msgs == null || !msgs.isArray() || msgs.isEmpty()) {
      throw new UserError("template " + source + ": needs a non-empty \"messages\" array");
    }
    List<Message> out = new ArrayList<>();
    boolean hasBoard = false;
    for (int i = 0; i < msgs.size(); i++) {
      String where = "template " + source + " message " + (i + 1);
      JsonNode m = msgs.get(i);
      if (!m.isObject()) throw new UserError(where + ": expected an object with role and content");
      String role = Datasets.text(m, "role", where);
      String content = Datasets.text(m, "content", where);
      if (!ROLES.contains(role)) throw new UserError(where + ": role '" + role + "' is not system, user or assistant");
      Matcher mt = PLACEHOLDER.matcher(content);
      while (mt.find()) {
        if (!NAMES.contains(mt.group(1))) {
          throw new UserError(where + ": unknown placeholder {{" + mt.group(1)
              + "}} (known: board, question, width, height, boxes)");
        }
        if (mt.group(1).equals("board") || mt.group(1).equals("question")) hasBoard = true;
      }
      out.add(new Message(role, content));
    }
    if (!hasBoard) throw new UserError("template " + source + ": no {{board}} or {{question}} placeholder, the model would never see the puzzle");
    return new Prompt(List.copyOf(out));
  }

  /** The messages for a puzzle. */
  public List<Message> messages(Puzzle p) {
    List<Message> out = new ArrayList<>(template.size());
    for (Message m : template) {
      String c = m.content()
          .replace("{{board}}", LlmBoard.labeled(p.level()))
          .replace("{{question}}", p.question())
          .replace("{{width}}", String.valueOf(p.level().width()))
          .replace("{{height}}", String.valueOf(p.level().height()))
          .replace("{{boxes}}", String.valueOf(p.level().boxCount()));
      out.add(new Message(m.role(), c));
    }
    return out;
  }
}
