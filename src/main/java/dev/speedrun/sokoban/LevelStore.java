package dev.speedrun.sokoban;

import dev.speedrun.UserError;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A compact, read-only store of many levels of one size, e.g. a Boxoban split directory
 * ({@code unfiltered/train}: 900 files x 1000 levels). Each level is {@code width*height} bytes of
 * {@link Level} cell flags, all in one array: the 900k training levels take 90 MB.
 *
 * <p>Levels are numbered 0..{@link #size()}-1 in file-name order, then file order. A level's address
 * is {@code <name>/<file>#<N>}, N being its {@code ; N} header number, e.g.
 * {@code unfiltered/train/000.txt#17}.
 *
 * <p>{@link #load} parses a directory once and caches the parsed form in a cache directory, keyed by
 * the files' names, sizes and modification times; later loads read the cache (a fraction of a
 * second for the training split).
 */
public final class LevelStore {
  private static final String MAGIC = "sokoban-speedrun level store v1";

  private final String name;
  private final int width, height, cellsPer;
  private final String[] files;
  private final int[] fileStart; // first level of each file, plus the total at the end
  private final int[] numbers; // the `; N` number of each level
  private final byte[] cells;
  private Map<String, Integer> fileIndex;

  private LevelStore(String name, int width, int height, String[] files, int[] fileStart, int[] numbers, byte[] cells) {
    this.name = name;
    this.width = width;
    this.height = height;
    this.cellsPer = width * height;
    this.files = files;
    this.fileStart = fileStart;
    this.numbers = numbers;
    this.cells = cells;
  }

  /**
   * A store of the given levels (all of one size), as if read from one file {@code fileName}
   * whose levels are numbered 0, 1, ...
   */
  public static LevelStore of(String name, String fileName, List<Level> levels) {
    if (levels.isEmpty()) throw new IllegalArgumentException("no levels");
    int w = levels.get(0).width(), h = levels.get(0).height();
    byte[] cells = new byte[levels.size() * w * h];
    int[] numbers = new int[levels.size()];
    for (int k = 0; k < levels.size(); k++) {
      Level l = levels.get(k);
      if (l.width() != w || l.height() != h) {
        throw new IllegalArgumentException("level " + k + " is " + l.width() + "x" + l.height() + ", expected " + w + "x" + h);
      }
      for (int c = 0; c < w * h; c++) cells[k * w * h + c] = l.cell(c);
      numbers[k] = k;
    }
    return new LevelStore(name, w, h, new String[] {fileName}, new int[] {0, levels.size()}, numbers, cells);
  }

  public String name() { return name; }
  public int size() { return numbers.length; }
  public int width() { return width; }
  public int height() { return height; }
  public int fileCount() { return files.length; }
  public String fileName(int f) { return files[f]; }
  /** Index of the first level of file {@code f}; {@code fileStart(fileCount())} is {@link #size()}. */
  public int fileStart(int f) { return fileStart[f]; }
  /** The {@code ; N} number of level {@code k}. */
  public int number(int k) { return numbers[k]; }

  /** Flags of cell {@code c} (row * width + col) of level {@code k}. */
  public byte cell(int k, int c) { return cells[k * cellsPer + c]; }

  /** Copies level {@code k}'s {@code width*height} cell flags into {@code dst} at {@code off}. */
  public void copyCells(int k, byte[] dst, int off) {
    System.arraycopy(cells, k * cellsPer, dst, off, cellsPer);
  }

  /** Level {@code k} as a {@link Level} (allocates; for hot loops use {@link #copyCells}). */
  public Level level(int k) {
    return new Level(width, height, Arrays.copyOfRange(cells, k * cellsPer, (k + 1) * cellsPer));
  }

  /** All levels, in order (allocates one {@link Level} each). */
  public List<Level> levels() {
    List<Level> out = new ArrayList<>(size());
    for (int k = 0; k < size(); k++) out.add(level(k));
    return out;
  }

  /** The file level {@code k} came from. */
  public int fileOf(int k) {
    int f = Arrays.binarySearch(fileStart, k);
    if (f >= 0) {
      while (f + 1 < fileStart.length && fileStart[f + 1] == k) f++; // skip empty files (never stored)
      return f;
    }
    return -f - 2;
  }

  /** {@code <name>/<file>#<N>}. */
  public String address(int k) {
    return (name.isEmpty() ? "" : name + "/") + files[fileOf(k)] + "#" + numbers[k];
  }

  /** The level number of {@code file#N} within this store (file name relative to the store), or -1. */
  public int indexOf(String file, int number) {
    if (fileIndex == null) {
      Map<String, Integer> m = new HashMap<>();
      for (int f = 0; f < files.length; f++) m.put(files[f], f);
      fileIndex = m;
    }
    Integer f = fileIndex.get(file);
    if (f == null) return -1;
    for (int k = fileStart[f]; k < fileStart[f + 1]; k++) if (numbers[k] == number) return k;
    return -1;
  }

  // ---------------------------------------------------------------------------------------------
  // Loading

  /**
   * Loads every {@code *.txt} Boxoban file of {@code dir} (sorted by name), using or writing a cached
   * binary form in {@code cacheDir} (null: no cache). {@code name} is the split's name used in
   * addresses, e.g. {@code unfiltered/train}. Bad files raise a {@link UserError} naming the file,
   * the line and the fault.
   */
  public static LevelStore load(Path dir, String name, Path cacheDir) {
    if (!Files.isDirectory(dir)) throw new UserError(dir + ": no such level directory");
    List<Path> paths;
    try (Stream<Path> s = Files.list(dir)) {
      paths = s.filter(p -> p.getFileName().toString().endsWith(".txt") && Files.isRegularFile(p)).sorted().toList();
    } catch (IOException e) {
      throw new UserError(dir + ": cannot list the directory (" + e.getMessage() + ")");
    }
    if (paths.isEmpty()) throw new UserError(dir + ": no .txt level files in the directory");
    String key = cacheKey(name, paths);
    Path cache = cacheDir == null ? null : cacheDir.resolve("levels-" + name.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + key + ".bin");
    if (cache != null && Files.isRegularFile(cache)) {
      LevelStore s = readCache(cache, name);
      if (s != null) return s;
    }
    LevelStore s = parseFiles(paths, name);
    if (cache != null) writeCache(cache, s);
    return s;
  }

  private static String cacheKey(String name, List<Path> paths) {
    StringBuilder sb = new StringBuilder(MAGIC).append('\n').append(name).append('\n');
    for (Path p : paths) {
      try {
        sb.append(p.getFileName()).append(' ').append(Files.size(p)).append(' ')
            .append(Files.getLastModifiedTime(p).toMillis()).append('\n');
      } catch (IOException e) {
        throw new UserError(p + ": cannot read the file (" + e.getMessage() + ")");
      }
    }
    return Level.sha256Hex(sb.toString()).substring(0, 16);
  }

  /** One parsed file: its levels' numbers and cells. */
  private record Parsed(int width, int height, int[] numbers, byte[] cells) {}

  private static LevelStore parseFiles(List<Path> paths, String name) {
    Parsed[] parsed = new Parsed[paths.size()];
    // Parse files in parallel; the result does not depend on the order of work.
    RuntimeException[] errors = new RuntimeException[paths.size()];
    IntStream.range(0, paths.size()).parallel().forEach(f -> {
      try {
        parsed[f] = parseFile(paths.get(f));
      } catch (RuntimeException e) {
        errors[f] = e;
      }
    });
    for (RuntimeException e : errors) if (e != null) throw e; // the first file's error, deterministically
    int w = parsed[0].width, h = parsed[0].height;
    int total = 0;
    for (int f = 0; f < parsed.length; f++) {
      if (parsed[f].width != w || parsed[f].height != h) {
        throw new UserError(paths.get(f) + ": levels are " + parsed[f].width + "x" + parsed[f].height
            + ", but " + paths.get(0).getFileName() + " has " + w + "x" + h + "; a split holds levels of one size");
      }
      total += parsed[f].numbers.length;
    }
    byte[] cells = new byte[total * w * h];
    int[] numbers = new int[total];
    int[] fileStart = new int[paths.size() + 1];
    String[] files = new String[paths.size()];
    int k = 0;
    for (int f = 0; f < parsed.length; f++) {
      files[f] = paths.get(f).getFileName().toString();
      fileStart[f] = k;
      System.arraycopy(parsed[f].numbers, 0, numbers, k, parsed[f].numbers.length);
      System.arraycopy(parsed[f].cells, 0, cells, k * w * h, parsed[f].cells.length);
      k += parsed[f].numbers.length;
    }
    fileStart[paths.size()] = k;
    return new LevelStore(name, w, h, files, fileStart, numbers, cells);
  }

  /** Parses one Boxoban file; a fast byte-level path, with {@link Formats#parseBoxoban} for anything unusual. */
  static Parsed parseFile(Path p) {
    byte[] b;
    try {
      b = Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UserError(p + ": cannot read the file (" + e.getMessage() + ")");
    }
    Parsed fast = parseFast(b);
    if (fast != null) return fast;
    // Something unusual: the general parser either explains the fault or reads what the fast path could not.
    List<Formats.Entry> entries = Formats.parseBoxoban(new String(b, StandardCharsets.UTF_8), p.toString());
    Level first = entries.get(0).level();
    int w = first.width(), h = first.height();
    int[] numbers = new int[entries.size()];
    byte[] cells = new byte[entries.size() * w * h];
    for (int k = 0; k < entries.size(); k++) {
      Formats.Entry e = entries.get(k);
      if (e.level().width() != w || e.level().height() != h) {
        throw new UserError(p + " line " + e.line() + ": level " + e.index() + " is " + e.level().width() + "x"
            + e.level().height() + ", but the file's first level is " + w + "x" + h);
      }
      numbers[k] = e.index();
      for (int c = 0; c < w * h; c++) cells[k * w * h + c] = e.level().cell(c);
    }
    return new Parsed(w, h, numbers, cells);
  }

  /** The common well-formed case only ({@code \n} line ends, plain glyphs); null on anything else. */
  private static Parsed parseFast(byte[] b) {
    int n = b.length, i = 0;
    int w = -1, h = -1;
    int[] numbers = new int[1024];
    byte[] cells = new byte[1 << 17];
    int count = 0;
    while (i < n) {
      if (b[i] == '\n') {
        i++;
        continue;
      }
      if (b[i] != ';') return null;
      i++;
      while (i < n && b[i] == ' ') i++;
      int num = 0, digits = 0;
      while (i < n && b[i] >= '0' && b[i] <= '9' && digits < 9) {
        num = num * 10 + (b[i] - '0');
        i++;
        digits++;
      }
      if (digits == 0 || i >= n || b[i] != '\n') return null;
      i++;
      // rows until a blank line or the end
      int rows = 0, rowWidth = -1, players = 0, boxes = 0, goals = 0;
      while (i < n && b[i] != '\n') {
        if (b[i] == ';') return null;
        int start = i;
        while (i < n && b[i] != '\n') i++;
        int len = i - start;
        if (rowWidth < 0) rowWidth = len;
        if (len != rowWidth) return null;
        if (w >= 0 && len != w) return null;
        if (count == numbers.length) numbers = Arrays.copyOf(numbers, count * 2);
        for (int c = 0; c < len; c++) {
          byte f;
          switch (b[start + c]) {
            case '#' -> f = Level.WALL;
            case ' ' -> f = 0;
            case '@' -> { f = Level.PLAYER; players++; }
            case '$' -> { f = Level.BOX; boxes++; }
            case '.' -> { f = Level.GOAL; goals++; }
            case '*' -> { f = Level.BOX | Level.GOAL; boxes++; goals++; }
            case '+' -> { f = Level.PLAYER | Level.GOAL; players++; goals++; }
            default -> { return null; }
          }
          int at = (w < 0 ? 0 : count * w * h) + rows * len + c;
          if (at >= cells.length) cells = Arrays.copyOf(cells, Math.max(cells.length * 2, at + 1));
          cells[at] = f;
        }
        rows++;
        if (i < n) i++; // the row's newline
        if (h >= 0 && rows > h) return null;
        if (rows > Level.MAX_SIDE) return null;
      }
      if (rows == 0) return null;
      if (w < 0) {
        w = rowWidth;
        h = rows;
      }
      if (rows != h || players != 1 || boxes == 0 || boxes != goals) return null;
      numbers[count++] = num;
    }
    if (count == 0) return null;
    return new Parsed(w, h, Arrays.copyOf(numbers, count), Arrays.copyOf(cells, count * w * h));
  }

  private static LevelStore readCache(Path cache, String name) {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(cache), 1 << 16))) {
      if (!in.readUTF().equals(MAGIC) || !in.readUTF().equals(name)) return null;
      int w = in.readInt(), h = in.readInt(), nf = in.readInt();
      String[] files = new String[nf];
      int[] fileStart = new int[nf + 1];
      for (int f = 0; f < nf; f++) {
        files[f] = in.readUTF();
        fileStart[f + 1] = fileStart[f] + in.readInt();
      }
      int total = fileStart[nf];
      int[] numbers = new int[total];
      byte[] nb = new byte[total * 4];
      in.readFully(nb);
      java.nio.ByteBuffer.wrap(nb).asIntBuffer().get(numbers);
      byte[] cells = new byte[total * w * h];
      in.readFully(cells);
      if (in.read() != -1) return null;
      return new LevelStore(name, w, h, files, fileStart, numbers, cells);
    } catch (IOException | RuntimeException e) {
      return null; // a damaged cache is rebuilt from the level files
    }
  }

  private static void writeCache(Path cache, LevelStore s) {
    Path tmp = null;
    try {
      Files.createDirectories(cache.getParent());
      tmp = Files.createTempFile(cache.getParent(), cache.getFileName().toString(), ".tmp");
      try (OutputStream os = Files.newOutputStream(tmp);
          DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16))) {
        out.writeUTF(MAGIC);
        out.writeUTF(s.name);
        out.writeInt(s.width);
        out.writeInt(s.height);
        out.writeInt(s.files.length);
        for (int f = 0; f < s.files.length; f++) {
          out.writeUTF(s.files[f]);
          out.writeInt(s.fileStart[f + 1] - s.fileStart[f]);
        }
        java.nio.ByteBuffer nb = java.nio.ByteBuffer.allocate(s.numbers.length * 4);
        nb.asIntBuffer().put(s.numbers);
        out.write(nb.array());
        out.write(s.cells);
      }
      try {
        Files.move(tmp, cache, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, cache, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      // The cache is an optimization: an unwritable cache directory only costs the next load time.
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // nothing more to do
        }
      }
    }
  }
}
