package dev.speedrun.web;

import dev.speedrun.UserError;
import dev.speedrun.sokoban.Formats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Boxoban levels for the page, read in place from a levels folder laid out as DeepMind's archive
 * ({@code unfiltered/train/000.txt}, ...). A level is named by split, file number and {@code ; N}
 * index; the split must be one of {@link #SPLITS} and the file a number, so a request can never name
 * a path outside the folder. The folder itself is found by {@link dev.speedrun.sokoban.LevelSources}.
 */
public final class LevelLibrary {
  /** The splits the page offers, in order. */
  public static final List<String> SPLITS =
      List.of("unfiltered/train", "unfiltered/valid", "unfiltered/test", "medium/train", "medium/valid", "hard");

  /** A split present in the folder and its number of files (000.txt ... ). */
  public record Split(String name, int files) {}

  /** One level: its address ({@code unfiltered/valid/000.txt#17}) and board. */
  public record Found(String address, Formats.Entry entry) {}

  private final Path dir;
  private final Map<Path, List<Formats.Entry>> cache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Path, List<Formats.Entry>> e) {
          return size() > 8;
        }
      };

  public LevelLibrary(Path dir) {
    this.dir = dir.toAbsolutePath().normalize();
  }

  public Path dir() { return dir; }

  /** The splits present, with their file counts. */
  public List<Split> splits() {
    List<Split> out = new ArrayList<>();
    for (String s : SPLITS) {
      int n = 0;
      while (n < 1000 && Files.isRegularFile(file(s, n))) n++;
      if (n > 0) out.add(new Split(s, n));
    }
    return out;
  }

  private Path file(String split, int file) {
    return dir.resolve(split).resolve(String.format("%03d.txt", file));
  }

  /** The level {@code split/file.txt#index}; 400 for a bad name, 404 when it is not there. */
  public Found level(String split, int file, int index) {
    List<Formats.Entry> entries = entries(split, file);
    for (Formats.Entry e : entries) if (e.index() == index) return new Found(address(split, file, index), e);
    throw HttpError.notFound(address(split, file, index) + " is not in the levels folder (the file has levels "
        + entries.get(0).index() + ".." + entries.get(entries.size() - 1).index() + ")");
  }

  /** A level chosen uniformly over the split's files and levels by {@code seed}. */
  public Found random(String split, long seed) {
    checkSplit(split);
    int files = 0;
    for (Split s : splits()) if (s.name().equals(split)) files = s.files();
    if (files == 0) throw HttpError.notFound("split " + split + " is not in the levels folder");
    java.util.SplittableRandom rng = new java.util.SplittableRandom(seed);
    int f = rng.nextInt(files);
    List<Formats.Entry> entries = entries(split, f);
    Formats.Entry e = entries.get(rng.nextInt(entries.size()));
    return new Found(address(split, f, e.index()), e);
  }

  private static String address(String split, int file, int index) {
    return String.format("%s/%03d.txt#%d", split, file, index);
  }

  private static void checkSplit(String split) {
    if (split == null || !SPLITS.contains(split)) {
      throw HttpError.badRequest("unknown split '" + abbreviate(split) + "'; expected one of " + String.join(", ", SPLITS));
    }
  }

  static String abbreviate(String s) {
    if (s == null) return "";
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }

  private List<Formats.Entry> entries(String split, int file) {
    checkSplit(split);
    if (file < 0 || file > 999) throw HttpError.badRequest("file number " + file + " is outside 0..999");
    Path p = file(split, file).normalize();
    if (!p.startsWith(dir)) throw HttpError.badRequest("level path escapes the levels folder"); // cannot happen
    synchronized (cache) {
      List<Formats.Entry> e = cache.get(p);
      if (e != null) return e;
    }
    if (!Files.isRegularFile(p)) throw HttpError.notFound(String.format("%s/%03d.txt is not in the levels folder", split, file));
    List<Formats.Entry> e;
    try {
      e = Formats.parseBoxoban(Files.readString(p, StandardCharsets.UTF_8), p.toString());
    } catch (IOException ex) {
      throw new HttpError(500, "cannot read " + p + ": " + ex.getMessage());
    } catch (UserError ex) {
      throw new HttpError(500, "bad level file: " + ex.getMessage());
    }
    synchronized (cache) {
      cache.put(p, e);
    }
    return e;
  }
}
