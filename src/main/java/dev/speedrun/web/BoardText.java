package dev.speedrun.web;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * A board pasted into the page, in XSB or in the LLM track's legend ({@code +} wall, {@code -}
 * floor, {@code X} goal, {@code @} box, {@code $} box on goal, {@code *} player, {@code %} player on
 * goal; cells separated by single spaces). The two legends disagree on {@code + @ $ *}, so the format
 * comes from the caller; {@code auto} guesses only when the text is unambiguous.
 */
public final class BoardText {
  private BoardText() {}

  public static final int MAX_CHARS = 4096;

  /** Parses {@code text} in {@code format} ("xsb", "llm" or "auto"); a 400 {@link HttpError} says what is wrong. */
  public static Level parse(String text, String format) {
    if (text == null || text.isBlank()) throw HttpError.badRequest("the board is empty");
    if (text.length() > MAX_CHARS) throw HttpError.badRequest("the board has " + text.length() + " characters, more than " + MAX_CHARS);
    String f = format == null ? "auto" : format;
    if (f.equals("auto")) f = guess(text);
    try {
      return switch (f) {
        case "xsb" -> Formats.parseXsb(text, "pasted XSB board");
        case "llm" -> parseLlm(text);
        default -> throw HttpError.badRequest("unknown board format '" + LevelLibrary.abbreviate(format) + "'; expected xsb, llm or auto");
      };
    } catch (UserError e) {
      throw HttpError.badRequest(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest("pasted board: " + e.getMessage());
    }
  }

  /** "xsb" or "llm" when the text can only be one of them; otherwise a 400 asking for the format. */
  static String guess(String text) {
    boolean xsbOnly = text.indexOf('#') >= 0 || text.indexOf('.') >= 0;
    boolean llmOnly = text.indexOf('X') >= 0 || text.indexOf('%') >= 0;
    if (xsbOnly && !llmOnly) return "xsb";
    if (llmOnly && !xsbOnly) return "llm";
    throw HttpError.badRequest("cannot tell whether the board is XSB or the LLM legend; choose the format");
  }

  /** Parses the LLM track's legend; rows must have equal numbers of cells. */
  public static Level parseLlm(String text) {
    List<String> lines = new ArrayList<>(List.of(text.split("\r?\n", -1)));
    int first = 1;
    while (!lines.isEmpty() && lines.get(0).isBlank()) {
      lines.remove(0);
      first++;
    }
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) lines.remove(lines.size() - 1);
    if (lines.isEmpty()) throw new UserError("pasted LLM board: empty");
    int height = lines.size();
    String[][] rows = new String[height][];
    for (int r = 0; r < height; r++) {
      String l = lines.get(r).strip();
      rows[r] = l.split(" +");
      if (rows[r].length != rows[0].length) {
        throw new UserError("pasted LLM board line " + (first + r) + ": row has " + rows[r].length
            + " cells, expected " + rows[0].length);
      }
    }
    int width = rows[0].length;
    if (width > Level.MAX_SIDE || height > Level.MAX_SIDE) {
      throw new UserError("pasted LLM board: " + width + "x" + height + " is larger than " + Level.MAX_SIDE + "x" + Level.MAX_SIDE);
    }
    byte[] cells = new byte[width * height];
    for (int r = 0; r < height; r++) {
      for (int c = 0; c < width; c++) {
        String t = rows[r][c];
        if (t.length() != 1) {
          throw new UserError("pasted LLM board line " + (first + r) + " cell " + (c + 1) + ": '"
              + LevelLibrary.abbreviate(t) + "' is not one character (cells are separated by single spaces)");
        }
        cells[r * width + c] = switch (t.charAt(0)) {
          case '+' -> Level.WALL;
          case '-' -> 0;
          case 'X' -> Level.GOAL;
          case '@' -> Level.BOX;
          case '$' -> (byte) (Level.BOX | Level.GOAL);
          case '*' -> Level.PLAYER;
          case '%' -> (byte) (Level.PLAYER | Level.GOAL);
          default -> throw new UserError("pasted LLM board line " + (first + r) + " cell " + (c + 1)
              + ": unknown character '" + t + "' (legend: + wall, - floor, X goal, @ box, $ box on goal, * player, % player on goal)");
        };
      }
    }
    return new Level(width, height, cells);
  }
}
