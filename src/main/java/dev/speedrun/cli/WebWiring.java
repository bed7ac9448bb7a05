package dev.speedrun.cli;

import dev.speedrun.nn.Policies;
import dev.speedrun.sokoban.Solver;
import java.util.Optional;
import dev.speedrun.web.PlayServer;

/**
 * Connects the page to the project's engines: checkpoint loading (nn), the solver and the level
 * generator (sokoban). A part that is not in this build is null and the page says so.
 */
final class WebWiring {
  private WebWiring() {}

  static final long SOLVER_MAX_EXPANDED = 2_000_000, SOLVER_MILLIS = 10_000;

  static PlayServer.PolicyLoader policies() {
    return Policies::load;
  }

  /** The project's solver with page-sized limits (the request waits for it). */
  static PlayServer.Solver solver() {
    return level -> {
      Solver.Result r = new Solver(level).solve(SOLVER_MAX_EXPANDED, SOLVER_MILLIS);
      return r.solved() ? Optional.of(r.moves()) : Optional.empty();
    };
  }

  static PlayServer.Generator generator() {
    return null;
  }
}
