package dev.speedrun.llm;

import java.nio.file.Path;

/** Test helpers of this package for tests in other packages. */
public final class FakeChatServerAccess {
  private FakeChatServerAccess() {}

  public static Path evalFile() {
    return SharedData.llmEval();
  }
}
