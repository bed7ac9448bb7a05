package dev.speedrun.sokoban;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

/** Where tests find the shared Boxoban data (read in place, never copied). */
public final class TestData {
  private TestData() {}

  public static Path boxoban() {
    Path shared = LevelSources.sharedDir();
    assertThat(shared).as("the shared data folder beside the repository").isNotNull();
    return shared.resolve("data").resolve("boxoban");
  }

  public static Path llmEval() {
    return LevelSources.sharedDir().resolve("data").resolve("speedrun-llm").resolve("sokoban_eval.jsonl");
  }

  /** unfiltered/test, parsed without a cache. */
  public static LevelStore unfilteredTest() {
    return LevelStore.load(boxoban().resolve("unfiltered/test"), "unfiltered/test", null);
  }
}
