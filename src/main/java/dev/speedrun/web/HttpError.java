package dev.speedrun.web;

/**
 * A request the server refuses: an HTTP status (4xx) and one sentence saying why. The server turns
 * it into a JSON answer {@code {"error": reason}} and keeps serving.
 */
public final class HttpError extends RuntimeException {
  private final int status;

  public HttpError(int status, String reason) {
    super(reason, null, false, false);
    this.status = status;
  }

  public int status() { return status; }

  public static HttpError badRequest(String reason) { return new HttpError(400, reason); }
  public static HttpError notFound(String reason) { return new HttpError(404, reason); }
}
