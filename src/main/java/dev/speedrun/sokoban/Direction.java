package dev.speedrun.sokoban;

/**
 * The four moves. {@link #action()} is the Boxoban environment's action id (0 is noop, 1 down,
 * 2 up, 3 left, 4 right); {@link #letter()} is the LLM track's and the replay format's letter.
 */
public enum Direction {
  UP(-1, 0, 'U', 2),
  DOWN(1, 0, 'D', 1),
  LEFT(0, -1, 'L', 3),
  RIGHT(0, 1, 'R', 4);

  public final int dRow, dCol;
  private final char letter;
  private final int action;

  Direction(int dRow, int dCol, char letter, int action) {
    this.dRow = dRow;
    this.dCol = dCol;
    this.letter = letter;
    this.action = action;
  }

  public char letter() { return letter; }
  public int action() { return action; }

  /** The direction of an uppercase letter U/D/L/R, or null for any other character. */
  public static Direction ofLetter(char c) {
    return switch (c) {
      case 'U' -> UP;
      case 'D' -> DOWN;
      case 'L' -> LEFT;
      case 'R' -> RIGHT;
      default -> null;
    };
  }

  /** The direction of an environment action id 1..4, or null for noop (0). */
  public static Direction ofAction(int action) {
    return switch (action) {
      case 0 -> null;
      case 1 -> DOWN;
      case 2 -> UP;
      case 3 -> LEFT;
      case 4 -> RIGHT;
      default -> throw new IllegalArgumentException("action " + action + " is not in 0..4");
    };
  }
}
