package dev.speedrun.eval;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every level of one Boxoban split, in order (files by name, levels by their {@code ; N} index),
 * checked to be complete: each file holds levels 0..m-1 exactly once, and an official split has
 * its official number of files and levels. {@code unfiltered/test}, the scoring split, must also
 * match its pinned file and content hashes, so a score is never printed for another file.
 *
 * <p>Identity: a level is the sha256 of its starting board ({@link Level#sha256()}); the set is
 * {@link #levelsSha256}, the sha256 of the level hashes in order, one per line (joined by
 * {@code \n}, no trailing newline), which a verifier recomputes from per-level results.
 */
public final class LevelSet {
  /** One level with its address ({@code unfiltered/test/000.txt#17}) and identity. */
  public record Entry(String address, Level level, String sha256) {}

  /** One level file with the sha256 of its bytes. */
  public record FileHash(String path, String sha256, int levels) {}

  /** Official splits: files and levels (DeepMind boxoban-levels). */
  public record Official(int files, int levels) {}

  public static final Map<String, Official> OFFICIAL = Map.of(
      "unfiltered/train", new Official(900, 900_000),
      "unfiltered/valid", new Official(100, 100_000),
      "unfiltered/test", new Official(1, 1_000),
      "medium/train", new Official(450, 450_000),
      "medium/valid", new Official(50, 50_000),
      "hard", new Official(4, 3_332));

  /** The scoring split and its pinned identity (file bytes, and the content hash defined above). */
  public static final String TEST_SPLIT = "unfiltered/test";
  public static final String TEST_FILE_SHA256 = "272928a4e7c185fdf84daa523b298750b6ff08703cb0c20d3be7eff93acc5256";
  public static final String TEST_LEVELS_SHA256 = "a3ce125163421ba6508e1e3f0639c0465857bfa492d4613d8f129bd58ca26b89";

  public final String split;
  public final boolean official;
  public final List<FileHash> files;
  public final List<Entry> entries;
  public final String levelsSha256;

  private LevelSet(String split, boolean official, List<FileHash> files, List<Entry> entries) {
    this.split = split;
    this.official = official;
    this.files = List.copyOf(files);
    this.entries = List.copyOf(entries);
    this.levelsSha256 = levelsSha256(entries.stream().map(Entry::sha256).toList());
  }

  public int size() { return entries.size(); }

  /** sha256 of the given level hashes joined by '\n' (the set's identity). */
  public static String levelsSha256(List<String> levelHashes) {
    return Level.sha256Hex(String.join("\n", levelHashes));
  }

  /**
   * Loads split {@code split} (e.g. {@code unfiltered/test}, or one of its files such as
   * {@code unfiltered/valid/000.txt}) from {@code root} (the folder holding
   * {@code unfiltered/}, {@code medium/}, {@code hard/}). Throws {@link UserError} naming the file
   * and fault when a level is missing or repeated, a file is unreadable, or an official split is
   * not what it claims to be.
   */
  public static LevelSet load(Path root, String split) {
    String clean = split.replace('\\', '/').replaceAll("^/+|/+$", "");
    if (clean.isEmpty() || clean.contains("..")) throw new UserError("split '" + split + "' is not a split name like unfiltered/test");
    Path target = root.resolve(clean);
    // One level file of a split (unfiltered/valid/000.txt: the 1,000 levels training validates on)
    // scores as a split of its own, never an official one.
    boolean oneFile = clean.endsWith(".txt") && clean.contains("/");
    String prefix = oneFile ? clean.substring(0, clean.lastIndexOf('/')) : clean;
    List<Path> paths;
    if (oneFile) {
      if (!Files.isRegularFile(target)) throw new UserError("split " + clean + ": no level file " + target);
      paths = List.of(target);
    } else {
      if (!Files.isDirectory(target)) throw new UserError("split " + clean + ": no folder " + target);
      try (Stream<Path> s = Files.list(target)) {
        paths = s.filter(p -> p.getFileName().toString().endsWith(".txt")).sorted().toList();
      } catch (IOException e) {
        throw new UserError("split " + clean + ": cannot list " + target + ": " + e.getMessage());
      }
      if (paths.isEmpty()) throw new UserError("split " + clean + ": no .txt level files in " + target);
    }
    List<FileHash> files = new ArrayList<>();
    List<Entry> entries = new ArrayList<>();
    for (Path p : paths) {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(p);
      } catch (IOException e) {
        throw new UserError("cannot read level file " + p + ": " + e.getMessage());
      }
      String rel = prefix + "/" + p.getFileName();
      List<Formats.Entry> parsed = Formats.parseBoxoban(new String(bytes, StandardCharsets.UTF_8), rel);
      boolean[] seen = new boolean[parsed.size()];
      for (Formats.Entry e : parsed) {
        if (e.index() < 0 || e.index() >= parsed.size()) {
          throw new UserError(rel + " line " + e.line() + ": level number " + e.index() + " is outside 0.."
              + (parsed.size() - 1) + " (the file holds " + parsed.size() + " levels), so a level is missing");
        }
        if (seen[e.index()]) throw new UserError(rel + " line " + e.line() + ": level " + e.index() + " appears twice");
        seen[e.index()] = true;
      }
      Entry[] ordered = new Entry[parsed.size()];
      for (Formats.Entry e : parsed) ordered[e.index()] = new Entry(rel + "#" + e.index(), e.level(), e.level().sha256());
      entries.addAll(List.of(ordered));
      files.add(new FileHash(rel, sha256(bytes), parsed.size()));
    }
    Official off = OFFICIAL.get(clean);
    if (off != null) {
      if (files.size() != off.files() || entries.size() != off.levels()) {
        throw new UserError("split " + clean + " in " + target + " has " + files.size() + " files and " + entries.size()
            + " levels, but the official split has " + off.files() + " and " + off.levels() + ": refusing to score it");
      }
    }
    LevelSet set = new LevelSet(clean, off != null, files, entries);
    if (prefix.equals(TEST_SPLIT)) {
      String fileHash = files.get(0).sha256();
      if (!fileHash.equals(TEST_FILE_SHA256) || !set.levelsSha256.equals(TEST_LEVELS_SHA256)) {
        throw new UserError(files.get(0).path() + " in " + target + " is not the official " + TEST_SPLIT
            + " file (sha256 " + fileHash + ", expected " + TEST_FILE_SHA256 + "): refusing to score it");
      }
    }
    return set;
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** sha256 (hex) of a file's bytes. */
  public static String sha256(Path file) {
    try {
      return sha256(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UserError("cannot read " + file + ": " + e.getMessage());
    }
  }
}
