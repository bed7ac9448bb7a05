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

  /** The revision as log.txt writes it: "COMMIT", with " (dirty)" after it for a tree with uncommitted changes. */
  public static String revisionText() {
    Map<String, Object> rev = revision();
    return rev.get("commit") + (Boolean.TRUE.equals(rev.get("dirty")) ? " (dirty)" : "");
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

  /**
   * The CPU's model name with its family and model numbers where /proc/cpuinfo gives them ("AMD EPYC
   * (family 25, model 1)"): virtual machines often name only the vendor line, and Zen 3 and Zen 4 share
   * that name and family.
   */
  public static String cpu() {
    try {
      return cpu(Files.readAllLines(Path.of("/proc/cpuinfo")));
    } catch (Exception e) {
      return System.getProperty("os.arch");
    }
  }

  static String cpu(java.util.List<String> cpuinfo) {
    String name = null, family = null, model = null;
    for (String line : cpuinfo) {
      int c = line.indexOf(':');
      if (c < 0) continue;
      String k = line.substring(0, c).trim(), v = line.substring(c + 1).trim();
      if (k.equals("model name") && name == null) name = v;
      else if (k.equals("cpu family") && family == null) family = v;
      else if (k.equals("model") && model == null) model = v;
      if (line.isBlank() && name != null) break; // the first processor is enough
    }
    if (name == null) return System.getProperty("os.arch");
    return family != null && model != null ? name + " (family " + family + ", model " + model + ")" : name;
  }

  /**
   * The width of the preferred float vector, which picks the kernels' tiles and summation orders: the
   * same seed gives the same run bit for bit only at the same width (512 with AVX-512, 256 with AVX2).
   */
  public static int vectorBits() {
    return jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize();
  }

  /** CPU, cores and vector width, as logged for each segment of a run. */
  public static String machine() {
    return cpu() + ", " + cores() + " cores, " + vectorBits() + "-bit vectors";
  }

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }
}
