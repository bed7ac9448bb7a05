package dev.speedrun.rl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Where and with what a run was made: source revision, JDK, machine. */
public final class RunInfo {
  private RunInfo() {}

  /** The repository root (the launcher passes it), else the working directory. */
  public static Path root() {
    String r = System.getProperty("speedrun.root");
    return Path.of(r != null ? r : ".").toAbsolutePath().normalize();
  }

  /** {@code commit} and {@code dirty} of the source tree, or "unknown" outside a git checkout. */
  public static Map<String, Object> revision() {
    Map<String, Object> m = new LinkedHashMap<>();
    String commit = git("rev-parse", "HEAD");
    m.put("commit", commit == null ? "unknown" : commit.trim());
    String status = git("status", "--porcelain", "--untracked-files=no");
    m.put("dirty", status == null ? null : !status.isBlank());
    return m;
  }

  private static String git(String... args) {
    try {
      String[] cmd = new String[args.length + 3];
      cmd[0] = "git";
      cmd[1] = "-C";
      cmd[2] = root().toString();
      System.arraycopy(args, 0, cmd, 3, args.length);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return null;
      return new String(out);
    } catch (Exception e) {
      return null;
    }
  }

  public static String jdk() {
    return System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version");
  }

  public static String cpu() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
      }
    } catch (Exception e) {
      // fall through
    }
    return System.getProperty("os.arch");
  }

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }
}
