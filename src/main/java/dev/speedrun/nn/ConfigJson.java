package dev.speedrun.nn;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;

/** JSON of the policies' config records (stored in checkpoint metadata); strict about unknown keys. */
final class ConfigJson {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private ConfigJson() {}

  static String write(Record config) {
    try {
      return JSON.writeValueAsString(config);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads a config; {@code what} names it in errors (e.g. "policy config"). */
  static <T extends Record> T read(String json, Class<T> type, String what) {
    try {
      T c = JSON.readValue(json, type);
      if (c == null) throw new UserError(what + ": empty JSON");
      return c;
    } catch (JsonProcessingException e) {
      if (e.getCause() instanceof UserError u) throw u;
      throw new UserError(what + " is not valid JSON: " + e.getOriginalMessage());
    }
  }
}
