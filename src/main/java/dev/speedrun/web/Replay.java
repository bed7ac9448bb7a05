package dev.speedrun.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;

/**
 * A played episode as a small JSON file: {@code {"level": "<XSB text>", "actions": "UDLR...",
 * "player": "..."}}. The same shape as a {@code ./speedrun replay --batch} case ({@code level},
 * {@code actions}) plus who played, so that command accepts these files too. Other keys are ignored.
 */
public record Replay(String level, String actions, String player) {
  public static final int MAX_ACTIONS = 20_000;
  public static final int MAX_PLAYER = 80;

  /** What the actions do on the level: played until the board is solved, the rest ignored. */
  public record Outcome(boolean solved, int applied, int moves, int pushes) {}

  /** Reads and checks a replay object; a 400 {@link HttpError} names the faulty field. */
  public static Replay of(JsonNode node) {
    if (node == null || !node.isObject()) throw HttpError.badRequest("a replay is a JSON object with level, actions and player");
    String level = text(node, "level", true);
    String actions = text(node, "actions", true);
    String player = text(node, "player", false);
    if (player == null || player.isBlank()) player = "unknown";
    if (player.length() > MAX_PLAYER) throw HttpError.badRequest("replay player name has " + player.length() + " characters, more than " + MAX_PLAYER);
    for (int i = 0; i < player.length(); i++) {
      if (Character.isISOControl(player.charAt(i))) throw HttpError.badRequest("replay player name has a control character at position " + (i + 1));
    }
    if (actions.length() > MAX_ACTIONS) throw HttpError.badRequest("replay has " + actions.length() + " actions, more than " + MAX_ACTIONS);
    for (int i = 0; i < actions.length(); i++) {
      if (Direction.ofLetter(actions.charAt(i)) == null) {
        throw HttpError.badRequest("replay actions: character " + (i + 1) + " is '" + printable(actions.charAt(i)) + "', expected U, D, L or R");
      }
    }
    Level parsed = BoardText.parse(level, "xsb");
    return new Replay(parsed.toXsb(), actions, player);
  }

  private static String printable(char ch) {
    return ch < 32 || ch > 126 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch);
  }

  private static String text(JsonNode node, String key, boolean required) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      if (required) throw HttpError.badRequest("replay has no '" + key + "'");
      return null;
    }
    if (!v.isTextual()) throw HttpError.badRequest("replay '" + key + "' must be a string");
    return v.asText();
  }

  public Level parsedLevel() {
    return Formats.parseXsb(level, "replay level");
  }

  /** Plays the actions until the board is solved; the rest are ignored. */
  public Outcome outcome() {
    Game g = new Game(parsedLevel());
    int applied = 0;
    boolean solved = g.isSolved();
    for (int i = 0; i < actions.length() && !solved; i++) {
      g.move(Direction.ofLetter(actions.charAt(i)));
      applied++;
      solved = g.isSolved();
    }
    return new Outcome(solved, applied, g.moves(), g.pushes());
  }

  public ObjectNode toJson(ObjectMapper json) {
    ObjectNode o = json.createObjectNode();
    o.put("level", level);
    o.put("actions", actions);
    o.put("player", player);
    return o;
  }
}
