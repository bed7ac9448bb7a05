package dev.speedrun.sokoban;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable Sokoban level: a rectangular grid (up to {@value #MAX_SIDE} on a side) of walls,
 * floor and goals, with boxes and exactly one player. Cells are indexed {@code row * width + col}.
 *
 * <p>Each cell is a byte of flags: {@link #WALL}, {@link #GOAL}, {@link #BOX}, {@link #PLAYER}.
 * Construction validates: one player, at least one box, as many goals as boxes, nothing on a wall.
 * Format readers ({@link Formats}) turn text into levels and report the line of a fault.
 */
public final class Level {
  public static final int MAX_SIDE = 32;
  public static final byte WALL = 1, GOAL = 2, BOX = 4, PLAYER = 8;

  private final int width, height;
  private final byte[] cells;
  private final int player;

  /** Builds a level from cell flags ({@code cells.length == width * height}); validates it. */
  public Level(int width, int height, byte[] cells) {
    if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
      throw new IllegalArgumentException("level size " + width + "x" + height + " is outside 1.." + MAX_SIDE);
    }
    if (cells.length != width * height) {
      throw new IllegalArgumentException("expected " + width * height + " cells, got " + cells.length);
    }
    this.width = width;
    this.height = height;
    this.cells = cells.clone();
    int players = 0, boxes = 0, goals = 0, p = -1;
    for (int i = 0; i < cells.length; i++) {
      byte c = cells[i];
      if ((c & WALL) != 0 && (c & (GOAL | BOX | PLAYER)) != 0) {
        throw new IllegalArgumentException("cell " + i + " is a wall with something on it");
      }
      if ((c & PLAYER) != 0) {
        players++;
        p = i;
      }
      if ((c & BOX) != 0) boxes++;
      if ((c & GOAL) != 0) goals++;
      if ((c & BOX) != 0 && (c & PLAYER) != 0) {
        throw new IllegalArgumentException("cell " + i + " holds both a box and the player");
      }
    }
    if (players != 1) throw new IllegalArgumentException(players == 0 ? "no player" : players + " players");
    if (boxes == 0) throw new IllegalArgumentException("no boxes");
    if (boxes != goals) throw new IllegalArgumentException(boxes + " boxes but " + goals + " goals");
    this.player = p;
  }

  public int width() { return width; }
  public int height() { return height; }
  public int size() { return cells.length; }
  /** Flags of cell {@code i = row * width + col}. */
  public byte cell(int i) { return cells[i]; }
  public byte cell(int row, int col) { return cells[row * width + col]; }
  public boolean isWall(int i) { return (cells[i] & WALL) != 0; }
  public boolean isGoal(int i) { return (cells[i] & GOAL) != 0; }
  public boolean hasBox(int i) { return (cells[i] & BOX) != 0; }
  /** Index of the player's cell. */
  public int player() { return player; }
  /** A copy of the cell flags. */
  public byte[] cells() { return cells.clone(); }

  public int boxCount() {
    int n = 0;
    for (byte c : cells) if ((c & BOX) != 0) n++;
    return n;
  }

  public int boxesOnGoals() {
    int n = 0;
    for (byte c : cells) if ((c & (BOX | GOAL)) == (BOX | GOAL)) n++;
    return n;
  }

  public boolean isSolved() {
    for (byte c : cells) if ((c & BOX) != 0 && (c & GOAL) == 0) return false;
    return true;
  }

  /** XSB text: rows joined by '\n', no trailing newline ({@code # @ + $ * .}, space floor). */
  public String toXsb() {
    StringBuilder sb = new StringBuilder(height * (width + 1));
    for (int r = 0; r < height; r++) {
      if (r > 0) sb.append('\n');
      for (int c = 0; c < width; c++) sb.append(xsbChar(cells[r * width + c]));
    }
    return sb.toString();
  }

  /** Boxoban text of the board ({@code #}, space, {@code @ $ .}); Boxoban has no combined glyphs
   * for the player or a box on a goal, so this equals {@link #toXsb()} with {@code + *} for those. */
  public String toBoxobanRows() {
    return toXsb();
  }

  static char xsbChar(byte c) {
    if ((c & WALL) != 0) return '#';
    boolean goal = (c & GOAL) != 0;
    if ((c & PLAYER) != 0) return goal ? '+' : '@';
    if ((c & BOX) != 0) return goal ? '*' : '$';
    return goal ? '.' : ' ';
  }

  /**
   * The level's identity: sha256 (hex) of the board's rows joined by '\n', without header or
   * trailing newline, in the text it was read from. For Boxoban and XSB levels that text is
   * {@link #toXsb()}.
   */
  public String sha256() {
    return sha256Hex(toXsb());
  }

  public static String sha256Hex(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Level l && l.width == width && l.height == height && Arrays.equals(l.cells, cells);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * width + height) + Arrays.hashCode(cells);
  }

  @Override
  public String toString() {
    return toXsb();
  }
}
