package dev.speedrun.env;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;

/**
 * Replays actions on one level under the environment's rules and rewards (DESIGN.md, "Replay"):
 * actions are applied until the first done (solve, or step {@code maxSteps}); the rest are ignored;
 * no auto-reset. Works on any level size (the rules are {@link Game}'s; the reward accounting is
 * {@link BoxobanEnv}'s, which the tests check against each other).
 */
public final class Replay {
  private Replay() {}

  /**
   * @param finalBoard the position after the applied actions
   * @param ret the summed reward (the solving push earns target + solve, 1.25 by default)
   * @param steps actions applied
   * @param doneAt the 1-based step of the done, or null when the episode did not end
   */
  public record Result(Level finalBoard, float ret, boolean solved, int steps, Integer doneAt) {}

  /**
   * Action ids from text: U/D/L/R letters (either case), digits 0-4 (environment ids: 0 noop,
   * 1 down, 2 up, 3 left, 4 right); whitespace and commas are separators. Anything else is an error
   * naming its position.
   */
  public static int[] parseActions(String text, String source) {
    int[] out = new int[text.length()];
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || c == ',') continue;
      Direction d = Direction.ofLetter(Character.toUpperCase(c));
      if (d != null) out[n++] = d.action();
      else if (c >= '0' && c <= '4') out[n++] = c - '0';
      else {
        throw new UserError(source + ": character " + (i + 1) + " of the actions is '" + c
            + "', expected U/D/L/R letters or action ids 0-4");
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  public static Result run(Level level, int[] actions) {
    return run(level, actions, BoxobanEnv.Rewards.DEFAULT);
  }

  public static Result run(Level level, int[] actions, BoxobanEnv.Rewards rw) {
    Game g = new Game(level);
    int w = level.width();
    boolean[] rewarded = new boolean[level.size()];
    for (int c = 0; c < level.size(); c++) rewarded[c] = level.hasBox(c) && level.isGoal(c);
    float ret = 0;
    int t = 0;
    Integer doneAt = null;
    boolean solved = false;
    for (int a : actions) {
      if (a < 0 || a > 4) throw new IllegalArgumentException("action " + a + " is not in 0..4");
      t++;
      Direction d = Direction.ofAction(a);
      if (d != null && g.move(d) == Game.Move.PUSHED) {
        int p = g.player();
        int box = (p / w + d.dRow) * w + p % w + d.dCol;
        if (level.isGoal(box) && !rewarded[box]) {
          rewarded[box] = true;
          ret += rw.target();
        }
      }
      if (g.isSolved()) {
        ret += rw.solve();
        solved = true;
        doneAt = t;
        break;
      }
      if (t >= rw.maxSteps()) {
        ret += rw.timeout();
        doneAt = t;
        break;
      }
    }
    if (actions.length == 0) solved = g.isSolved();
    return new Result(g.toLevel(), ret, solved, t, doneAt);
  }
}
