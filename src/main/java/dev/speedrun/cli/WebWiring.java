package dev.speedrun.cli;

import dev.speedrun.nn.Policies;
import dev.speedrun.web.PlayServer;

/**
 * Connects the page to the project's engines: checkpoint loading (nn), the solver and the level
 * generator (sokoban). A part that is not in this build is null and the page says so.
 */
final class WebWiring {
  private WebWiring() {}

  static PlayServer.PolicyLoader policies() {
    return Policies::load;
  }

  static PlayServer.Solver solver() {
    return null;
  }

  static PlayServer.Generator generator() {
    return null;
  }
}
