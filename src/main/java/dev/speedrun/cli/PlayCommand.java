package dev.speedrun.cli;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.LevelSources;
import dev.speedrun.web.LevelLibrary;
import dev.speedrun.web.PlayServer;
import java.net.BindException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun play}: serves the play-and-watch page until Ctrl-C. */
@Command(
    name = "play",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the page to play Sokoban in the browser and watch agents and the solver play.",
      "Binds to 127.0.0.1 unless --host says otherwise, and prints the page's address."
    })
public final class PlayCommand implements Callable<Integer> {
  @Option(names = "--port", paramLabel = "PORT", description = "TCP port (default ${DEFAULT-VALUE}; 0 picks a free one).", defaultValue = "8080")
  int port;

  @Option(names = "--host", paramLabel = "ADDR", description = "Address to bind (default ${DEFAULT-VALUE}). Anything but loopback exposes the page to the network.", defaultValue = "127.0.0.1")
  String host;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels folder (else SOKOBAN_LEVELS, ../shared/data/boxoban, the cache).")
  Path levels;

  @Option(names = "--json", description = "Print the address as JSON.")
  boolean jsonOut;

  /** The levels root by the project's lookup order, or empty when there is none (pasted boards still work). */
  private Optional<Path> levelsRoot() {
    String flag = levels == null ? null : levels.toString();
    if (flag != null) return Optional.of(LevelSources.root(flag)); // a missing --levels folder is an error
    for (LevelSources.Candidate c : LevelSources.candidates(null)) {
      if (c.exists()) return Optional.of(c.dir().toAbsolutePath().normalize());
    }
    return Optional.empty();
  }

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65535) throw new UserError("--port " + port + " is outside 0..65535");
    InetAddress addr;
    try {
      addr = InetAddress.getByName(host);
    } catch (java.net.UnknownHostException e) {
      throw new UserError("--host " + host + ": unknown host");
    }
    Path root = LevelSources.repoRoot();
    Optional<Path> dir = levelsRoot();
    if (dir.isEmpty()) {
      System.err.println("play: no Boxoban levels folder found (--levels DIR or SOKOBAN_LEVELS); pasted boards still work.");
    }
    PlayServer.Options opt = new PlayServer.Options(host, port, dir.map(LevelLibrary::new).orElse(null), root,
        WebWiring.policies(), WebWiring.solver(), WebWiring.generator());
    PlayServer server;
    try {
      server = PlayServer.start(opt);
    } catch (BindException e) {
      throw new UserError("cannot listen on " + host + ":" + port + ": " + e.getMessage() + " (try another --port)");
    }
    if (!addr.isLoopbackAddress()) {
      System.err.println("play: warning: bound to " + host + ", not loopback: anyone who can reach this machine can use the page.");
    }
    if (jsonOut) {
      System.out.println("{\"url\": \"" + server.url() + "\"}");
    } else {
      System.out.println("play: serving " + server.url() + " (levels: " + dir.map(Path::toString).orElse("none") + "; Ctrl-C to stop)");
    }
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    Thread.currentThread().join();
    return 0;
  }
}
