package dev.speedrun.llm;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * The LLM track's board text (reasoning-gym's legend): {@code +} wall, {@code -} floor, {@code X}
 * goal, {@code @} box, {@code $} box on goal, {@code *} player, {@code %} player on goal. Cells are
 * separated by single spaces, one row per line.
 *
 * <p>Two written forms: {@link #question} (rows joined by '\n', no trailing spaces or newline) and
 * {@link #gamestr} (each row followed by two spaces and '\n', then one more '\n'), as in the
 * benchmark's JSONL. {@link #parse} reads both, and rows written without spaces.
 *
 * <p>The legend clashes with XSB ({@code @ + $ *} mean other things), so this reader is only used
 * where the format is known to be the LLM legend. (Kept in {@code llm} for now; it may move to
 * {@code sokoban.Formats} later.)
 */
public final class LlmBoard {
  private LlmBoard() {}

  /** Parses a board in the LLM legend; {@code source} names where it came from in messages. */
  public static Level parse(String text, String source) {
    List<String> lines = new ArrayList<>();
    for (String l : text.split("\r?\n", -1)) lines.add(l.stripTrailing());
    int first = 0;
    while (first < lines.size() && lines.get(first).isEmpty()) first++;
    int last = lines.size();
    while (last > first && lines.get(last - 1).isEmpty()) last--;
    if (first == last) throw new UserError(source + ": empty board");
    int height = last - first;
    List<String> rows = new ArrayList<>(height);
    for (int r = first; r < last; r++) {
      String line = lines.get(r).strip();
      rows.add(line.indexOf(' ') >= 0 ? cellsOfSpaced(line, source, r - first + 1) : line);
    }
    int width = rows.get(0).length();
    if (height > Level.MAX_SIDE || width > Level.MAX_SIDE) {
      throw new UserError(source + ": board is " + width + "x" + height + ", larger than "
          + Level.MAX_SIDE + "x" + Level.MAX_SIDE);
    }
    byte[] cells = new byte[width * height];
    for (int r = 0; r < height; r++) {
      String row = rows.get(r);
      if (row.length() != width) {
        throw new UserError(source + " board row " + (r + 1) + ": has " + row.length()
            + " cells, expected " + width + " like the first row");
      }
      for (int c = 0; c < width; c++) {
        char ch = row.charAt(c);
        cells[r * width + c] = switch (ch) {
          case '+' -> Level.WALL;
          case '-' -> 0;
          case 'X' -> Level.GOAL;
          case '@' -> Level.BOX;
          case '$' -> (byte) (Level.BOX | Level.GOAL);
          case '*' -> Level.PLAYER;
          case '%' -> (byte) (Level.PLAYER | Level.GOAL);
          default -> throw new UserError(source + " board row " + (r + 1) + " column " + (c + 1)
              + ": unknown cell '" + printable(ch) + "' (legend: + wall, - floor, X goal, @ box,"
              + " $ box on goal, * player, % player on goal)");
        };
      }
    }
    try {
      return new Level(width, height, cells);
    } catch (IllegalArgumentException e) {
      throw new UserError(source + ": invalid board: " + e.getMessage());
    }
  }

  private static String cellsOfSpaced(String line, String source, int row) {
    StringBuilder sb = new StringBuilder();
    for (String tok : line.split(" +")) {
      if (tok.length() != 1) {
        throw new UserError(source + " board row " + row + ": cell '" + tok
            + "' is more than one character (cells are separated by single spaces)");
      }
      sb.append(tok);
    }
    return sb.toString();
  }

  /** The legend character of a cell's flags. */
  public static char glyph(byte c) {
    if ((c & Level.WALL) != 0) return '+';
    boolean goal = (c & Level.GOAL) != 0;
    if ((c & Level.PLAYER) != 0) return goal ? '%' : '*';
    if ((c & Level.BOX) != 0) return goal ? '$' : '@';
    return goal ? 'X' : '-';
  }

  /** The {@code question} form: cells joined by single spaces, rows by '\n', nothing trailing. */
  public static String question(Level level) {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < level.height(); r++) {
      if (r > 0) sb.append('\n');
      appendRow(sb, level, r);
    }
    return sb.toString();
  }

  /** The {@code gamestr} form: every row followed by two spaces and '\n', then one more '\n'. */
  public static String gamestr(Level level) {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < level.height(); r++) {
      appendRow(sb, level, r);
      sb.append("  \n");
    }
    return sb.append('\n').toString();
  }

  /**
   * The board with row and column labels (0-based), for prompts: a header line of column numbers,
   * then each row prefixed by its number.
   */
  public static String labeled(Level level) {
    int w = level.width(), h = level.height();
    int lw = String.valueOf(h - 1).length();
    StringBuilder sb = new StringBuilder();
    sb.append(" ".repeat(lw));
    for (int c = 0; c < w; c++) sb.append(' ').append(c);
    for (int r = 0; r < h; r++) {
      sb.append('\n');
      String label = String.valueOf(r);
      sb.append(" ".repeat(lw - label.length())).append(label);
      for (int c = 0; c < w; c++) sb.append(' ').append(glyph(level.cell(r, c)));
    }
    return sb.toString();
  }

  private static void appendRow(StringBuilder sb, Level level, int r) {
    for (int c = 0; c < level.width(); c++) {
      if (c > 0) sb.append(' ');
      sb.append(glyph(level.cell(r, c)));
    }
  }

  private static String printable(char ch) {
    return ch < 32 || ch > 126 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch);
  }
}
