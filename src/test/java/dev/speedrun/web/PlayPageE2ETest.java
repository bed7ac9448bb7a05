package dev.speedrun.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.sokoban.Direction;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Game;
import dev.speedrun.sokoban.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page end to end in Debian's headless Chromium, driven by playwright-core (src/test/e2e): load
 * a level, play a known solution by key presses and see "solved", save the replay and watch it to the
 * end, watch an agent (a scripted fake policy) and the solver (a fake), paste an LLM-legend board,
 * and get 4xx answers with their reasons for bad requests. Skipped only when node or chromium is not
 * installed (.ci/run installs both). Set {@code -Dplay.screenshots=docs/img} to refresh the README's
 * screenshots.
 */
class PlayPageE2ETest {
  @TempDir Path tmp;

  @Test
  void playWatchAndRefuseInARealBrowser() throws Exception {
    Optional<Path> node = TestTools.which("node");
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM_PATH", "/usr/bin/chromium"));
    assumeTrue(node.isPresent(), "SKIPPED browser test: node is not installed (.ci/run installs it)");
    assumeTrue(Files.isExecutable(chromium), "SKIPPED browser test: " + chromium + " is not installed (apt-get install chromium; .ci/run does)");
    Path e2e = TestTools.repo().resolve("src/test/e2e");
    if (!Files.isDirectory(e2e.resolve("node_modules/playwright-core"))) npmCi(e2e);

    Path f = TestTools.boxoban().resolve("unfiltered/valid/000.txt");
    Level level = Formats.parseBoxoban(Files.readString(f), f.toString()).get(3).level();
    String solution = PlayServerTest.SOLUTION_3;
    Game reference = new Game(level).play(solution);
    assertThat(reference.isSolved()).isTrue();

    Path root = tmp.resolve("repo");
    Files.createDirectories(root.resolve("runs/demo"));
    Files.writeString(root.resolve("runs/demo/agent.safetensors"), "scripted in the test");
    int[] script = solution.chars().map(c -> Direction.ofLetter((char) c).action()).toArray();
    PlayServer.Solver solver = l -> l.equals(level) ? Optional.of(solution) : Optional.empty();
    try (PlayServer server = PlayServer.start(new PlayServer.Options("127.0.0.1", 0,
        new LevelLibrary(TestTools.boxoban()), root, p -> new ScriptedNet(script), solver, generator()))) {
      Map<String, Object> cfg = new LinkedHashMap<>();
      cfg.put("url", server.url());
      cfg.put("chromium", chromium.toString());
      cfg.put("split", "unfiltered/valid");
      cfg.put("file", 0);
      cfg.put("index", 3);
      cfg.put("address", PlayServerTest.LEVEL_3);
      cfg.put("solution", solution);
      cfg.put("pushes", reference.pushes());
      cfg.put("checkpoint", "runs/demo/agent.safetensors");
      cfg.put("llmBoard", "+ + + + + +\n+ * - @ X +\n+ + + + + +");
      cfg.put("llmSolution", "RR");
      cfg.put("outDir", tmp.toString());
      String shots = System.getProperty("play.screenshots");
      cfg.put("screenshots", shots == null ? tmp.resolve("screenshots").toString() : Path.of(shots).toAbsolutePath().toString());
      Path cfgFile = tmp.resolve("e2e.json");
      new ObjectMapper().writeValue(cfgFile.toFile(), cfg);

      Path log = tmp.resolve("e2e.log");
      Process p = new ProcessBuilder(node.get().toString(), e2e.resolve("play.e2e.js").toString(), cfgFile.toString())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      boolean finished;
      try {
        finished = p.waitFor(5, TimeUnit.MINUTES); // a hung browser must not hang the build
      } finally {
        if (p.isAlive()) p.destroyForcibly();
      }
      String out = Files.readString(log);
      assertThat(finished).as("browser test did not finish in 5 minutes:\n%s", out).isTrue();
      System.out.println(out.lines().filter(l -> l.startsWith("e2e")).findFirst().orElse("e2e: no summary"));
      assertThat(p.exitValue()).as("browser test output:\n%s", out).isZero();
      assertThat(out).contains("e2e: all ");
    }
    // Independent checks of the saved replay: the engine replays it to a solve, and so does
    // ./speedrun replay --batch (the file is a one-case JSONL batch).
    Path replayFile = tmp.resolve("replay.json");
    var replay = new ObjectMapper().readTree(replayFile.toFile());
    assertThat(new Game(Formats.parseXsb(replay.path("level").asText(), "replay")).play(replay.path("actions").asText()).isSolved()).isTrue();
    java.io.PrintStream stdout = System.out;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
      code = dev.speedrun.cli.Main.commandLine().execute("replay", "--batch", replayFile.toString());
    } finally {
      System.setOut(stdout);
    }
    assertThat(code).isZero();
    var result = new ObjectMapper().readTree(captured.toString(StandardCharsets.UTF_8));
    assertThat(result.path("solved").asBoolean()).as(captured.toString(StandardCharsets.UTF_8)).isTrue();
    assertThat(result.path("done_at").asInt()).isEqualTo(solution.length());
  }

  /** The real generator in the LLM track's smallest style. */
  private static PlayServer.Generator generator() {
    return new PlayServer.Generator() {
      @Override
      public List<String> styles() {
        return List.of("llm");
      }

      @Override
      public Level generate(String style, long seed) {
        return new dev.speedrun.sokoban.Generator(dev.speedrun.sokoban.Generator.Settings.of(6, 6, 2)).generate(seed, 0);
      }
    };
  }

  private static void npmCi(Path dir) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(List.of("npm", "ci", "--no-audit", "--no-fund")).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as("npm ci in %s failed:\n%s", dir, out).isZero();
  }
}
