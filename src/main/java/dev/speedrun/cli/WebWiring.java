package dev.speedrun.cli;

import dev.speedrun.nn.Policies;
import dev.speedrun.sokoban.Generator;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.Solver;
import java.util.List;
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

  /**
   * Generated levels of either track's style: "boxoban" (10x10, 4 boxes, as DeepMind's levels) and
   * "llm" (the LLM track's puzzles: 6-7 wide and high, 2-3 boxes, chosen by the seed).
   */
  static PlayServer.Generator generator() {
    return new PlayServer.Generator() {
      @Override
      public List<String> styles() {
        return List.of("boxoban", "llm");
      }

      @Override
      public Level generate(String style, long seed) {
        Generator.Settings s = switch (style) {
          case "boxoban" -> Generator.Settings.BOXOBAN;
          case "llm" -> Generator.Settings.of(6 + (int) (seed & 1), 6 + (int) ((seed >> 1) & 1), 2 + (int) ((seed >> 2) & 1));
          default -> throw new IllegalArgumentException("unknown style " + style);
        };
        return new Generator(s).generate(seed, 0);
      }
    };
  }
}
