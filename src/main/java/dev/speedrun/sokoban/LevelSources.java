package dev.speedrun.sokoban;

import dev.speedrun.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Where Boxoban levels come from, in one place. A levels root is a directory holding the Boxoban
 * splits ({@code unfiltered/train}, {@code unfiltered/valid}, {@code unfiltered/test},
 * {@code medium/train}, {@code hard}, ...). Lookup order (DESIGN.md): the {@code --levels DIR} flag,
 * the {@code SOKOBAN_LEVELS} environment variable, {@code ../shared/data/boxoban} beside the
 * repository, then {@code boxoban} in the cache directory ({@code ~/.cache/sokoban-speedrun}, where
 * {@link #download} puts the official archive).
 */
public final class LevelSources {
  private LevelSources() {}

  public static final String ENV_VAR = "SOKOBAN_LEVELS";
  public static final String ARCHIVE_URL =
      "https://github.com/google-deepmind/boxoban-levels/archive/refs/heads/master.zip";

  /** One place that was looked at, and why. */
  public record Candidate(String origin, Path dir) {
    public boolean exists() { return dir != null && Files.isDirectory(dir); }
  }

  /** The places to look, in order ({@code flag} may be null). */
  public static List<Candidate> candidates(String flag) {
    List<Candidate> out = new ArrayList<>();
    if (flag != null && !flag.isBlank()) out.add(new Candidate("--levels", Path.of(flag)));
    String env = System.getenv(ENV_VAR);
    if (env != null && !env.isBlank()) out.add(new Candidate(ENV_VAR, Path.of(env)));
    Path shared = sharedDir();
    out.add(new Candidate("shared data", (shared != null ? shared : repoRoot().resolve("../shared").normalize())
        .resolve("data").resolve("boxoban")));
    out.add(new Candidate("cache", cacheDir().resolve("boxoban")));
    return out;
  }

  /**
   * The levels root: the first candidate that exists. An explicit {@code --levels} that does not
   * exist is an error, not a reason to look elsewhere.
   */
  public static Path root(String flag) {
    List<Candidate> cs = candidates(flag);
    if (flag != null && !flag.isBlank() && !cs.get(0).exists()) {
      throw new UserError("--levels " + flag + ": no such directory");
    }
    for (Candidate c : cs) if (c.exists()) return c.dir().toAbsolutePath().normalize();
    StringBuilder tried = new StringBuilder();
    for (Candidate c : cs) tried.append(tried.isEmpty() ? "" : ", ").append(c.dir());
    throw new UserError("no Boxoban levels found (looked in " + tried + "); pass --levels DIR, set "
        + ENV_VAR + ", or run './speedrun levels download' on a machine with internet");
  }

  /** The repository root: system property {@code speedrun.root} (set by the launcher), else the working directory. */
  public static Path repoRoot() {
    String root = System.getProperty("speedrun.root");
    return (root != null ? Path.of(root) : Path.of("")).toAbsolutePath().normalize();
  }

  /**
   * The shared folder beside the repository ({@code ../shared}), or null: the system property
   * {@code speedrun.shared} when that directory exists (tests), else {@code shared} beside the
   * repository root or beside one of its ancestors (a git worktree may sit one level deeper).
   */
  public static Path sharedDir() {
    String prop = System.getProperty("speedrun.shared");
    if (prop != null && Files.isDirectory(Path.of(prop))) return Path.of(prop).toAbsolutePath().normalize();
    for (Path p = repoRoot(); p != null; p = p.getParent()) {
      Path parent = p.getParent();
      if (parent == null) break;
      Path s = parent.resolve("shared");
      if (Files.isDirectory(s.resolve("data"))) return s;
    }
    return null;
  }

  /** The cache directory: {@code $XDG_CACHE_HOME/sokoban-speedrun} or {@code ~/.cache/sokoban-speedrun}. */
  public static Path cacheDir() {
    String prop = System.getProperty("speedrun.cache");
    if (prop != null) return Path.of(prop);
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "sokoban-speedrun");
    return Path.of(System.getProperty("user.home"), ".cache", "sokoban-speedrun");
  }

  private static final Map<Path, LevelStore> STORES = new ConcurrentHashMap<>();

  /**
   * The store of split {@code split} (e.g. {@code unfiltered/train}) under the levels root found
   * from {@code flag}; loaded once per process, cached on disk in {@link #cacheDir()}.
   */
  public static LevelStore split(String flag, String split) {
    Path root = root(flag);
    Path dir = root.resolve(split).normalize();
    if (!Files.isDirectory(dir)) {
      throw new UserError("split '" + split + "' not found: " + dir + " is not a directory (splits: "
          + String.join(", ", splits(root)) + ")");
    }
    return STORES.computeIfAbsent(dir, d -> LevelStore.load(d, split, cacheDir()));
  }

  /**
   * The fallback when no Boxoban levels exist (DESIGN.md: such a score is not a record): {@code count}
   * Boxoban-style 10x10 levels from {@link Generator} for {@code seed}, generated on all cores once and
   * kept as a Boxoban file in {@code <cache>/generated}, then read like a split named
   * {@code generated/seed-<seed>}. Generation costs about 25 ms of CPU per level.
   */
  public static LevelStore generated(int count, long seed) {
    if (count < 1) throw new IllegalArgumentException("count must be positive");
    Path dir = cacheDir().resolve("generated").resolve("seed-" + seed + "-n" + count);
    Path file = dir.resolve("000.txt");
    if (!Files.isRegularFile(file)) {
      Level[] levels = new Level[count];
      ThreadLocal<Generator> gen = ThreadLocal.withInitial(() -> new Generator(Generator.Settings.BOXOBAN));
      java.util.stream.IntStream.range(0, count).parallel().forEach(k -> levels[k] = gen.get().generate(seed, k));
      try {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "000.txt", ".tmp");
        Files.writeString(tmp, Formats.toBoxoban(java.util.Arrays.asList(levels)), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        // An unwritable cache: use the levels without keeping them.
        return LevelStore.of("generated/seed-" + seed, "000.txt", java.util.Arrays.asList(levels));
      }
    }
    return STORES.computeIfAbsent(dir, d -> LevelStore.load(d, "generated/seed-" + seed, null));
  }

  /** Split directories under {@code root} (those holding .txt files), as relative names. */
  public static List<String> splits(Path root) {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(root, 3)) {
      s.filter(Files::isDirectory).sorted().forEach(d -> {
        try (Stream<Path> f = Files.list(d)) {
          if (f.anyMatch(p -> p.getFileName().toString().endsWith(".txt"))) {
            out.add(root.relativize(d).toString().replace('\\', '/'));
          }
        } catch (IOException ignored) {
          // unreadable directory: not a split
        }
      });
    } catch (IOException e) {
      throw new UserError(root + ": cannot list the directory (" + e.getMessage() + ")");
    }
    return out;
  }

  /**
   * One level from a spec: a file path (XSB, reasoning-gym, or a Boxoban file holding one level),
   * {@code FILE#N} (the level with header {@code ; N} of a Boxoban file), or a source address
   * {@code split/file#N} under the levels root. {@code format} may be null (from the file type).
   */
  public static Level level(String spec, String flag, Formats.Format format) {
    int hash = spec.lastIndexOf('#');
    String pathPart = hash >= 0 ? spec.substring(0, hash) : spec;
    Integer number = null;
    if (hash >= 0) {
      try {
        number = Integer.parseInt(spec.substring(hash + 1).trim());
      } catch (NumberFormatException e) {
        throw new UserError("level '" + spec + "': the part after '#' must be a level number");
      }
    }
    Path p = Path.of(pathPart);
    if (!Files.isRegularFile(p)) {
      Path root;
      try {
        root = root(flag);
      } catch (UserError e) {
        throw new UserError("level '" + spec + "': no such file, and " + e.getMessage());
      }
      Path q = root.resolve(pathPart);
      if (!Files.isRegularFile(q)) {
        throw new UserError("level '" + spec + "': no such file here or under the levels root " + root);
      }
      p = q;
    }
    String text;
    try {
      text = Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UserError(p + ": cannot read the file (" + e.getMessage() + ")");
    }
    if (number != null) {
      for (Formats.Entry e : Formats.parseBoxoban(text, p.toString())) if (e.index() == number) return e.level();
      throw new UserError(p + ": no level '; " + number + "' in the file");
    }
    Formats.Format f = format != null ? format : Formats.formatOf(p.getFileName().toString(), text, p.toString());
    if (f == Formats.Format.BOXOBAN) {
      List<Formats.Entry> es = Formats.parseBoxoban(text, p.toString());
      if (es.size() != 1) {
        throw new UserError(p + ": holds " + es.size() + " levels; pick one with " + pathPart + "#N");
      }
      return es.get(0).level();
    }
    return Formats.parse(text, f, p.toString());
  }

  /**
   * Downloads the official Boxoban archive into {@code <cache>/boxoban}; fails fast (a short connect
   * timeout) with one clear sentence when there is no internet. Returns the levels root.
   */
  public static Path download(Path cacheDir, Duration connectTimeout) {
    Path target = cacheDir.resolve("boxoban");
    HttpClient client = HttpClient.newBuilder().connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpRequest req = HttpRequest.newBuilder(URI.create(ARCHIVE_URL)).timeout(Duration.ofMinutes(10)).GET().build();
    Path tmp = null;
    try {
      Files.createDirectories(cacheDir);
      HttpResponse<InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
      if (resp.statusCode() != 200) {
        throw new UserError("could not download the Boxoban levels from " + ARCHIVE_URL + ": HTTP " + resp.statusCode());
      }
      tmp = Files.createTempDirectory(cacheDir, "boxoban-download");
      int files = 0;
      try (ZipInputStream zip = new ZipInputStream(resp.body())) {
        for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
          String name = e.getName();
          int slash = name.indexOf('/');
          String rel = slash >= 0 ? name.substring(slash + 1) : name; // strip "boxoban-levels-master/"
          if (rel.isEmpty() || e.isDirectory() || rel.contains("..")) continue;
          if (rel.endsWith(".zip")) {
            // The archive holds each split as a zip of .txt files (e.g. unfiltered.zip); unpack them too.
            files += unzipNested(zip, tmp);
            continue;
          }
          Path out = tmp.resolve(rel);
          Files.createDirectories(out.getParent());
          Files.copy(zip, out, StandardCopyOption.REPLACE_EXISTING);
          if (rel.endsWith(".txt")) files++;
        }
      }
      if (files == 0) throw new UserError("the archive from " + ARCHIVE_URL + " holds no level files");
      deleteTree(target);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      tmp = null;
      return target;
    } catch (IOException e) {
      String why = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      throw new UserError("could not download the Boxoban levels from " + ARCHIVE_URL + " (" + why
          + "); copy them to a directory and pass --levels DIR or set " + ENV_VAR);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("download of the Boxoban levels interrupted");
    } finally {
      if (tmp != null) {
        try {
          deleteTree(tmp);
        } catch (IOException ignored) {
          // best effort
        }
      }
    }
  }

  private static int unzipNested(InputStream in, Path dir) throws IOException {
    ZipInputStream zip = new ZipInputStream(in);
    int files = 0;
    for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
      String rel = e.getName();
      if (e.isDirectory() || rel.contains("..")) continue;
      Path out = dir.resolve(rel);
      Files.createDirectories(out.getParent());
      Files.copy(zip, out, StandardCopyOption.REPLACE_EXISTING);
      if (rel.endsWith(".txt")) files++;
    }
    return files;
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
    }
  }
}
