package dev.speedrun.sokoban;

/**
 * A Sokoban position being played: the rules in one place. Moving into a box pushes it when the
 * cell beyond is floor or goal (not a wall, not another box); there are no pulls; a blocked move
 * leaves the position unchanged.
 */
public final class Game {
  private final int width, height;
  private final byte[] cells;
  private int player;
  private int moves, pushes;

  public Game(Level level) {
    this.width = level.width();
    this.height = level.height();
    this.cells = level.cells();
    this.player = level.player();
  }

  /** Outcome of one move. */
  public enum Move { BLOCKED, WALKED, PUSHED }

  /** Applies one move under the rules; returns what happened. */
  public Move move(Direction d) {
    int r = player / width + d.dRow, c = player % width + d.dCol;
    if (r < 0 || c < 0 || r >= height || c >= width) return Move.BLOCKED;
    int next = r * width + c;
    byte n = cells[next];
    if ((n & Level.WALL) != 0) return Move.BLOCKED;
    if ((n & Level.BOX) != 0) {
      int r2 = r + d.dRow, c2 = c + d.dCol;
      if (r2 < 0 || c2 < 0 || r2 >= height || c2 >= width) return Move.BLOCKED;
      int beyond = r2 * width + c2;
      if ((cells[beyond] & (Level.WALL | Level.BOX)) != 0) return Move.BLOCKED;
      cells[next] &= ~Level.BOX;
      cells[beyond] |= Level.BOX;
      pushes++;
      moveTo(next);
      return Move.PUSHED;
    }
    moveTo(next);
    return Move.WALKED;
  }

  private void moveTo(int next) {
    cells[player] &= ~Level.PLAYER;
    cells[next] |= Level.PLAYER;
    player = next;
    moves++;
  }

  /** Plays every U/D/L/R letter of {@code moves} (other characters ignored); returns this. */
  public Game play(CharSequence moves) {
    for (int i = 0; i < moves.length(); i++) {
      Direction d = Direction.ofLetter(moves.charAt(i));
      if (d != null) move(d);
    }
    return this;
  }

  public boolean isSolved() {
    for (byte c : cells) if ((c & Level.BOX) != 0 && (c & Level.GOAL) == 0) return false;
    return true;
  }

  public int player() { return player; }
  public boolean hasBox(int i) { return (cells[i] & Level.BOX) != 0; }
  public int width() { return width; }
  public int height() { return height; }
  /** Moves that changed the position (walks and pushes). */
  public int moves() { return moves; }
  public int pushes() { return pushes; }

  /** The current position as a level. */
  public Level toLevel() {
    return new Level(width, height, cells);
  }
}
