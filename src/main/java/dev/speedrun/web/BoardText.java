package dev.speedrun.web;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;

/**
 * A board pasted into the page, in XSB or in the LLM track's legend (reasoning-gym: {@code +} wall,
 * {@code -} floor, {@code X} goal, {@code @} box, {@code $} box on goal, {@code *} player, {@code %}
 * player on goal; cells separated by single spaces). The two legends disagree on {@code + @ $ *}, so
 * the format comes from the caller; {@code auto} guesses only when the text is unambiguous
 * ({@link Formats#guess}).
 */
public final class BoardText {
  private BoardText() {}

  public static final int MAX_CHARS = 4096;

  /** Parses {@code text} in {@code format} ("xsb", "llm" or "auto"); a 400 {@link HttpError} says what is wrong. */
  public static Level parse(String text, String format) {
    if (text == null || text.isBlank()) throw HttpError.badRequest("the board is empty");
    if (text.length() > MAX_CHARS) throw HttpError.badRequest("the board has " + text.length() + " characters, more than " + MAX_CHARS);
    String source = "pasted board";
    try {
      Formats.Format f = switch (format == null ? "auto" : format) {
        case "auto" -> Formats.guess(text, source);
        case "xsb" -> Formats.Format.XSB;
        case "llm" -> Formats.Format.RG;
        default -> throw HttpError.badRequest("unknown board format '" + LevelLibrary.abbreviate(format) + "'; expected xsb, llm or auto");
      };
      return Formats.parse(text, f, source);
    } catch (UserError e) {
      throw HttpError.badRequest(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(source + ": " + e.getMessage());
    }
  }
}
