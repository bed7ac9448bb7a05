package dev.speedrun.llm;

import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A multi-turn episode in the ECHO/RAGEN setting: each turn the agent sends up to
 * {@code maxActions} actions named {@code Up}, {@code Down}, {@code Left}, {@code Right}
 * separated by {@code ||}; the episode lasts at most {@code maxTurns} turns or until solved.
 *
 * <p>Rewards per executed action, as gym-sokoban: -0.1 for the step (also when blocked), +1 for
 * each box pushed onto a target, -1 for each box pushed off one, +10 when every box is on a
 * target (the episode then ends and the turn's remaining actions are not executed). Names other
 * than the four (case-insensitive) are reported as invalid and skipped at no cost; actions past
 * the first {@code maxActions} of a turn are ignored. Not thread-safe: callers synchronize.
 */
public final class Episode {
  public static final double STEP = -0.1, ON_TARGET = 1.0, OFF_TARGET = -1.0, SOLVED = 10.0;

  private final Game game;
  private final int maxActions, maxTurns;
  private int turn;
  private double total;

  /** What one turn did. */
  public record Turn(List<String> taken, List<Double> rewards, double reward, List<String> invalid,
      int ignored, boolean solved, boolean done) {}

  public Episode(Level level, int maxActions, int maxTurns) {
    if (maxActions < 1 || maxTurns < 1) throw new IllegalArgumentException("maxActions and maxTurns must be at least 1");
    this.game = new Game(level);
    this.maxActions = maxActions;
    this.maxTurns = maxTurns;
  }

  public boolean done() {
    return game.isSolved() || turn >= maxTurns;
  }

  public int turn() { return turn; }
  public int turnsLeft() { return Math.max(0, maxTurns - turn); }
  public int maxActions() { return maxActions; }
  public double totalReward() { return total; }
  public boolean solved() { return game.isSolved(); }
  public Level board() { return game.toLevel(); }

  /** Plays one turn; the episode must not be done. */
  public Turn step(String actions) {
    if (done()) throw new IllegalStateException("episode is over");
    turn++;
    List<String> taken = new ArrayList<>(), invalid = new ArrayList<>();
    List<Double> rewards = new ArrayList<>();
    double sum = 0;
    int ignored = 0, valid = 0;
    for (String raw : actions.split("\\|\\|", -1)) {
      String name = raw.strip();
      if (name.isEmpty()) continue;
      Direction d = ofName(name);
      if (d == null) {
        invalid.add(name);
        continue;
      }
      if (valid >= maxActions || game.isSolved()) {
        ignored++;
        continue;
      }
      valid++;
      int before = onTargets();
      game.move(d);
      int after = onTargets();
      double r = STEP + (after - before) * ON_TARGET;
      if (game.isSolved()) r += SOLVED;
      rewards.add(r);
      taken.add(name(d));
      sum += r;
    }
    total += sum;
    return new Turn(taken, rewards, sum, invalid, ignored, game.isSolved(), done());
  }

  private int onTargets() {
    Level l = game.toLevel();
    return l.boxesOnGoals();
  }

  /** The direction of an action name (Up/Down/Left/Right, any case), or null. */
  public static Direction ofName(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "up" -> Direction.UP;
      case "down" -> Direction.DOWN;
      case "left" -> Direction.LEFT;
      case "right" -> Direction.RIGHT;
      default -> null;
    };
  }

  static String name(Direction d) {
    return switch (d) {
      case UP -> "Up";
      case DOWN -> "Down";
      case LEFT -> "Left";
      case RIGHT -> "Right";
    };
  }
}
