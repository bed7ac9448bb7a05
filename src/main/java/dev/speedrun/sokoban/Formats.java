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
 *   <li>Reasoning-gym (the LLM track's board): {@code +} wall, {@code -} floor, {@code X} goal,
 *       {@code @} box, {@code $} box on goal, {@code *} player, {@code %} player on goal; the spaced
 *       {@code question} form (cells separated by single spaces, rows by newlines) and the
 *       {@code gamestr} form (each row followed by two spaces and a newline, then a blank line).
 * </ul>
 *
 * <p>XSB and reasoning-gym disagree on {@code @ + $ *}: a reader takes the format from a flag or the
 * file type, and {@link #guess} decides only where the text is unambiguous.
 */
public final class Formats {
  private Formats() {}

  /** A board text format. */
  public enum Format {
    XSB, BOXOBAN, RG;

    /** Parses a {@code --format} value: xsb, boxoban, rg (also: reasoning-gym, llm). */
    public static Format of(String name) {
      return switch (name.toLowerCase(java.util.Locale.ROOT)) {
        case "xsb", "sok" -> XSB;
        case "boxoban" -> BOXOBAN;
        case "rg", "reasoning-gym", "llm" -> RG;
        default -> throw new UserError("unknown format '" + name + "' (expected xsb, boxoban or rg)");
      };
    }
  }

  /** Parses one board in {@code format} (a Boxoban text must hold exactly one level). */
  public static Level parse(String text, Format format, String source) {
    return switch (format) {
      case XSB -> parseXsb(text, source);
      case RG -> parseRg(text, source);
      case BOXOBAN -> {
        List<Entry> es = parseBoxoban(text, source);
        if (es.size() != 1) throw new UserError(source + ": holds " + es.size() + " levels, expected one");
        yield es.get(0).level();
      }
    };
  }

  /** Parses one board, guessing its format ({@link #guess}). */
  public static Level parseAny(String text, String source) {
    return parse(text, guess(text, source), source);
  }

  /**
   * The format of a file: from its extension ({@code .xsb .sok} XSB, {@code .rg} reasoning-gym),
   * else a {@code ; N} header means Boxoban, else {@link #guess}.
   */
  public static Format formatOf(String fileName, String text, String source) {
    String f = fileName.toLowerCase(java.util.Locale.ROOT);
    if (f.endsWith(".xsb") || f.endsWith(".sok")) return Format.XSB;
    if (f.endsWith(".rg")) return Format.RG;
    return guess(text, source);
  }

  /**
   * Guesses the format of a board text where that is unambiguous: a {@code ;} header line means
   * Boxoban; {@code #} or {@code .} (never in reasoning-gym) means XSB; {@code X} or {@code %} (never
   * in XSB) means reasoning-gym. Otherwise a {@link UserError} asks for the format.
   */
  public static Format guess(String text, String source) {
    String t = text.strip();
    if (t.startsWith(";")) return Format.BOXOBAN;
    boolean xsb = t.indexOf('#') >= 0 || t.indexOf('.') >= 0;
    boolean rg = t.indexOf('X') >= 0 || t.indexOf('%') >= 0;
    if (xsb && !rg) return Format.XSB;
    if (rg && !xsb) return Format.RG;
    throw new UserError(source + ": cannot tell whether the board is XSB or reasoning-gym ("
        + (xsb ? "it has glyphs of both" : "it has glyphs of neither") + "); give the format (e.g. --format xsb)");
  }

  /**
   * Parses a reasoning-gym board, spaced {@code question} form or {@code gamestr} form: rows are
   * lines; within a row, cells are the non-space characters (single spaces between cells; trailing
   * spaces and blank lines at the start and end ignored). All rows must have the same width.
   */
  public static Level parseRg(String text, String source) {
    String[] lines = text.split("\r?\n", -1);
    int first = 0, last = lines.length - 1;
    while (first <= last && lines[first].isBlank()) first++;
    while (last >= first && lines[last].isBlank()) last--;
    if (first > last) throw new UserError(source + ": empty board");
    List<String> rows = new ArrayList<>();
    for (int i = first; i <= last; i++) {
      String line = lines[i].stripTrailing();
      int lineNo = i + 1;
      StringBuilder row = new StringBuilder();
      for (int c = 0; c < line.length(); c++) {
        char ch = line.charAt(c);
        if (c % 2 == 1) {
          if (ch != ' ') {
            throw new UserError(source + " line " + lineNo + " column " + (c + 1)
                + ": expected a space between cells, found '" + printable(ch) + "'");
          }
          continue;
        }
        char x = switch (ch) {
          case '+' -> '#';
          case '-' -> ' ';
          case 'X' -> '.';
          case '@' -> '$';
          case '$' -> '*';
          case '*' -> '@';
          case '%' -> '+';
          default -> throw new UserError(source + " line " + lineNo + " column " + (c + 1)
              + ": unknown character '" + printable(ch) + "' (reasoning-gym uses + - X @ $ * %)");
        };
        row.append(x);
      }
      rows.add(row.toString());
    }
    return parseRows(rows, source, first + 1, true);
  }

  /** The reasoning-gym {@code question} form: cells separated by single spaces, rows by '\n'. */
  public static String toRgQuestion(Level level) {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < level.height(); r++) {
      if (r > 0) sb.append('\n');
      for (int c = 0; c < level.width(); c++) {
        if (c > 0) sb.append(' ');
        sb.append(rgChar(level.cell(r, c)));
      }
    }
    return sb.toString();
  }

  /** The reasoning-gym {@code gamestr} form: each spaced row then two spaces and '\n', then '\n'. */
  public static String toRgGamestr(Level level) {
    StringBuilder sb = new StringBuilder();
    for (String row : toRgQuestion(level).split("\n")) sb.append(row).append("  \n");
    return sb.append('\n').toString();
  }

  static char rgChar(byte c) {
    if ((c & Level.WALL) != 0) return '+';
    boolean goal = (c & Level.GOAL) != 0;
    if ((c & Level.PLAYER) != 0) return goal ? '%' : '*';
    if ((c & Level.BOX) != 0) return goal ? '$' : '@';
    return goal ? 'X' : '-';
  }

  /** A Boxoban file of {@code levels}, headers {@code ; 0}, {@code ; 1}, ... (each level, then a blank line). */
  public static String toBoxoban(List<Level> levels) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < levels.size(); k++) {
      sb.append("; ").append(k).append('\n').append(levels.get(k).toXsb()).append("\n\n");
    }
    return sb.toString();
  }

  /** Writes {@code level} in {@code format} ({@code BOXOBAN}: one level numbered 0). */
  public static String write(Level level, Format format) {
    return switch (format) {
      case XSB -> level.toXsb();
      case RG -> toRgQuestion(level);
      case BOXOBAN -> toBoxoban(List.of(level));
    };
  }

  /** One level read from a multi-level file, with its {@code ; N} index and board text. */
  public record Entry(int index, Level level, String rows, int line) {}

  /** Parses one XSB board (rows separated by newlines; short rows are padded with floor). */
  public static Level parseXsb(String text, String source) {
    List<String> rows = new ArrayList<>();
    for (String line : text.split("\r?\n", -1)) rows.add(line);
    while (!rows.isEmpty() && rows.get(rows.size() - 1).isBlank()) rows.remove(rows.size() - 1);
    int skipped = 0; // leading blank lines, so that messages give the file's line numbers
    while (!rows.isEmpty() && rows.get(0).isBlank()) {
      rows.remove(0);
      skipped++;
    }
    if (rows.isEmpty()) throw new UserError(source + ": empty board");
    return parseRows(rows, source, 1 + skipped, false);
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
