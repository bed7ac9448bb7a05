package dev.speedrun.sokoban;

import dev.speedrun.UserError;
import java.util.ArrayList;
import java.util.List;

/**
 * Level text formats. Every reader names the source, the line and the fault on bad input
 * ({@link UserError}), and never skips a level silently.
 *
 * <ul>
 *   <li>XSB: {@code #} wall, space/{@code -}/{@code _} floor, {@code @} player, {@code +} player on
 *       goal, {@code $} box, {@code *} box on goal, {@code .} goal.
 *   <li>Boxoban files: levels of {@code ; N} header, rows of XSB characters, blank line.
 * </ul>
 */
public final class Formats {
  private Formats() {}

  /** One level read from a multi-level file, with its {@code ; N} index and board text. */
  public record Entry(int index, Level level, String rows, int line) {}

  /** Parses one XSB board (rows separated by newlines; short rows are padded with floor). */
  public static Level parseXsb(String text, String source) {
    List<String> rows = new ArrayList<>();
    for (String line : text.split("\r?\n", -1)) rows.add(line);
    while (!rows.isEmpty() && rows.get(rows.size() - 1).isBlank()) rows.remove(rows.size() - 1);
    while (!rows.isEmpty() && rows.get(0).isBlank()) rows.remove(0);
    if (rows.isEmpty()) throw new UserError(source + ": empty board");
    return parseRows(rows, source, 1, false);
  }

  /**
   * Parses rows of XSB characters into a level. Line numbers in messages start at {@code firstLine}.
   * With {@code exactWidth} every row must have the first row's width (Boxoban); otherwise short
   * rows are padded with floor.
   */
  static Level parseRows(List<String> rows, String source, int firstLine, boolean exactWidth) {
    int height = rows.size();
    int width = 0;
    for (String r : rows) width = Math.max(width, r.length());
    if (height > Level.MAX_SIDE || width > Level.MAX_SIDE) {
      throw new UserError(source + " line " + firstLine + ": board is " + width + "x" + height
          + ", larger than " + Level.MAX_SIDE + "x" + Level.MAX_SIDE);
    }
    byte[] cells = new byte[width * height];
    int players = 0, boxes = 0, goals = 0;
    for (int r = 0; r < height; r++) {
      String row = rows.get(r);
      int line = firstLine + r;
      if (exactWidth && row.length() != rows.get(0).length()) {
        throw new UserError(source + " line " + line + ": row has " + row.length()
            + " cells, expected " + rows.get(0).length());
      }
      for (int c = 0; c < width; c++) {
        char ch = c < row.length() ? row.charAt(c) : ' ';
        byte f = switch (ch) {
          case '#' -> Level.WALL;
          case ' ', '-', '_' -> 0;
          case '@' -> Level.PLAYER;
          case '+' -> (byte) (Level.PLAYER | Level.GOAL);
          case '$' -> Level.BOX;
          case '*' -> (byte) (Level.BOX | Level.GOAL);
          case '.' -> Level.GOAL;
          default -> throw new UserError(source + " line " + line + " column " + (c + 1)
              + ": unknown character '" + printable(ch) + "'");
        };
        if ((f & Level.PLAYER) != 0) players++;
        if ((f & Level.BOX) != 0) boxes++;
        if ((f & Level.GOAL) != 0) goals++;
        cells[r * width + c] = f;
      }
    }
    if (players != 1) {
      throw new UserError(source + " line " + firstLine + ": board has "
          + (players == 0 ? "no player" : players + " players") + ", expected one");
    }
    if (boxes == 0) throw new UserError(source + " line " + firstLine + ": board has no boxes");
    if (boxes != goals) {
      throw new UserError(source + " line " + firstLine + ": board has " + boxes + " boxes but "
          + goals + " goals");
    }
    return new Level(width, height, cells);
  }

  static String printable(char ch) {
    return ch < 32 || ch > 126 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch);
  }

  /**
   * Parses a Boxoban file: {@code ; N} headers, each followed by the board's rows and a blank line.
   * All rows of a board must have the same width.
   */
  public static List<Entry> parseBoxoban(String text, String source) {
    String[] lines = text.split("\r?\n", -1);
    List<Entry> out = new ArrayList<>();
    int i = 0;
    while (i < lines.length) {
      String line = lines[i];
      if (line.isBlank()) {
        i++;
        continue;
      }
      if (!line.startsWith(";")) {
        throw new UserError(source + " line " + (i + 1) + ": expected a '; N' header, found '"
            + abbreviate(line) + "'");
      }
      int index;
      try {
        index = Integer.parseInt(line.substring(1).trim());
      } catch (NumberFormatException e) {
        throw new UserError(source + " line " + (i + 1) + ": header '" + abbreviate(line)
            + "' has no level number");
      }
      int headerLine = i + 1;
      i++;
      List<String> rows = new ArrayList<>();
      while (i < lines.length && !lines[i].isEmpty() && !lines[i].startsWith(";")) {
        rows.add(lines[i]);
        i++;
      }
      if (rows.isEmpty()) throw new UserError(source + " line " + headerLine + ": level " + index + " has no rows");
      Level level = parseRows(rows, source, headerLine + 1, true);
      out.add(new Entry(index, level, String.join("\n", rows), headerLine));
    }
    if (out.isEmpty()) throw new UserError(source + ": empty file, no levels");
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
