package dev.speedrun;

/**
 * A mistake in the user's input (a bad level file, flag, checkpoint, JSONL row or request).
 * The CLI prints its message as one sentence and exits non-zero, without a stack trace.
 * Messages name what and where: {@code "levels/a.txt line 7: row has 11 cells, expected 10"}.
 */
public final class UserError extends RuntimeException {
  public UserError(String message) {
    super(message);
  }

  public UserError(String message, Throwable cause) {
    super(message, cause);
  }
}
