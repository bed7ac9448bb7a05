package dev.speedrun.llm;

import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;

/**
 * The LLM track's binary reward, exactly as the benchmark defines it.
 *
 * <ol>
 *   <li>Extraction: the text between the first {@code <answer>} and the first {@code </answer>}
 *       after it wins, even if empty; else the text after the first {@code ####}; else there is
 *       no answer and the reward is 0.
 *   <li>Replay: only uppercase {@code U D L R} are moves, every other character is ignored;
 *       blocked moves are no-ops; there is no step cap and moves after a solve are still applied.
 *   <li>Reward 1.0 iff every box ends on a goal, else 0.0.
 * </ol>
 */
public final class Reward {
  private Reward() {}

  static final String OPEN = "<answer>", CLOSE = "</answer>", HASHES = "####";

  /**
   * The outcome of scoring one completion.
   *
   * @param answer the extracted answer text, or null when there is none
   * @param moves the U/D/L/R letters of the answer in order (empty when none)
   * @param finalBoard the board after replaying every move
   */
  public record Result(double reward, String answer, String moves, Level finalBoard) {
    public boolean answered() {
      return answer != null;
    }

    public boolean solved() {
      return reward == 1.0;
    }
  }

  /** The answer text of a completion, or null when it has none. */
  public static String extractAnswer(String completion) {
    int open = completion.indexOf(OPEN);
    if (open >= 0) {
      int close = completion.indexOf(CLOSE, open + OPEN.length());
      if (close >= 0) return completion.substring(open + OPEN.length(), close);
    }
    int hashes = completion.indexOf(HASHES);
    if (hashes >= 0) return completion.substring(hashes + HASHES.length());
    return null;
  }

  /** The uppercase U/D/L/R letters of {@code answer}, in order. */
  public static String moves(String answer) {
    if (answer == null) return "";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < answer.length(); i++) {
      if (Direction.ofLetter(answer.charAt(i)) != null) sb.append(answer.charAt(i));
    }
    return sb.toString();
  }

  /** Scores a model completion on {@code level}. */
  public static Result score(Level level, String completion) {
    String answer = extractAnswer(completion);
    return replay(level, answer);
  }

  /** Scores an already extracted answer (null: no answer, reward 0). */
  public static Result replay(Level level, String answer) {
    String moves = moves(answer);
    Game g = new Game(level).play(moves);
    double reward = answer != null && g.isSolved() ? 1.0 : 0.0;
    return new Result(reward, answer, moves, g.toLevel());
  }
}
