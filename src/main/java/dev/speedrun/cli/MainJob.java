package dev.speedrun.cli;

/** The main job: what {@code ./speedrun} with no arguments does. */
final class MainJob {
  private MainJob() {}

  static int run() {
    System.out.println("speedrun: the main job (train the pinned recipe, score it) is not wired yet.");
    return 0;
  }
}
