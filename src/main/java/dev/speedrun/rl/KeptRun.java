package dev.speedrun.rl;

import dev.speedrun.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A run kept resumable across machines: the least of a run directory that {@code train --resume}
 * needs, small enough to commit, for runs longer than a machine lives (a session's machine may be
 * new, with nothing of the last one's runs/).
 *
 * <pre>
 *   KEPT/run.json, summary.json, eval.json, ...   the run's other top-level files, as they are
 *   KEPT/log.txt.gz, KEPT/metrics.jsonl.gz         the log and the metrics, gzipped (they grow by a line per iteration)
 *   KEPT/checkpoints/latest, KEPT/checkpoints/it-N/ the latest checkpoint, whole (policy, trainer state, meta)
 *   KEPT/checkpoints/it-N/trainer.bin.gz            instead of trainer.bin when kept portable
 * </pre>
 *
 * {@link #keep} replaces KEPT whole (written beside it, then swapped in); {@link #restore} makes a
 * new run directory from it and never writes over an existing one. A restored run resumes bit for
 * bit as the original would have from its latest checkpoint.
 *
 * <p>Git ignores {@code kept/*}{@code /checkpoints/*}{@code /trainer.bin} (the resume state, 4-9 MB: Adam
 * moments, recurrent states, boards), so a plain kept run carries its record and policy to another
 * machine but resumes only where its trainer.bin is. Kept {@code portable}, the resume state is
 * gzipped to {@code trainer.bin.gz} (about two thirds of the size), which git tracks: for the one
 * long run in progress that must survive the machine.
 */
public final class KeptRun {
  private static final String[] GZIPPED = {"log.txt", "metrics.jsonl"};
  private static final String TRAINER = "trainer.bin";

  private KeptRun() {}

  /** Copies the resumable core of run directory {@code run} to {@code kept}, replacing what was there. */
  public static void keep(Path run, Path kept) throws IOException {
    keep(run, kept, false);
  }

  /**
   * As {@link #keep(Path, Path)}; with {@code portable} the checkpoint's trainer.bin is written
   * gzipped as trainer.bin.gz (tracked by git, so the kept run resumes on any machine).
   */
  public static void keep(Path run, Path kept, boolean portable) throws IOException {
    if (!Files.isRegularFile(run.resolve("run.json"))) throw new UserError(run + " is not a run directory (no run.json)");
    Path ck = Checkpoints.latest(run);
    Checkpoints.requireUnpacked(ck); // a kept folder given as the run: say how to restore it
    if (!Files.isRegularFile(ck.resolve(TRAINER))) throw new UserError(ck + " has no trainer.bin: it cannot be resumed");
    if (kept.toAbsolutePath().normalize().startsWith(run.toAbsolutePath().normalize())) {
      throw new UserError(kept + " is inside the run directory " + run);
    }
    Path parent = kept.toAbsolutePath().getParent();
    Path tmp = copyCore(run, ck, parent.resolve(".tmp-" + kept.getFileName()), true, portable);
    Path old = parent.resolve(".old-" + kept.getFileName());
    Checkpoints.deleteTree(old);
    if (Files.exists(kept)) Files.move(kept, old);
    Files.move(tmp, kept);
    Checkpoints.deleteTree(old);
  }

  /** Makes run directory {@code run} (which must not exist) from kept run {@code kept}. */
  public static void restore(Path kept, Path run) throws IOException {
    if (!Files.isRegularFile(kept.resolve("run.json"))) throw new UserError(kept + " is not a kept run (no run.json)");
    if (Files.exists(run)) throw new UserError(run + " exists already; restore into a new directory (nothing was written)");
    Path ck = Checkpoints.latest(kept);
    Path tmp = copyCore(kept, ck, run.toAbsolutePath().getParent().resolve(".tmp-" + run.getFileName()), false, false);
    Files.move(tmp, run);
  }

  /**
   * Writes into a fresh {@code tmp} the top-level files of {@code from} (gzipping the log and metrics
   * when {@code pack}, else gunzipping them) and checkpoint {@code ck} as the only one (its
   * trainer.bin gzipped when {@code portable}; a trainer.bin.gz is always unpacked); returns tmp.
   */
  private static Path copyCore(Path from, Path ck, Path tmp, boolean pack, boolean portable) throws IOException {
    Checkpoints.deleteTree(tmp);
    Files.createDirectories(tmp);
    try (var s = Files.list(from)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (pack && isGzipped(name)) gzip(f, tmp.resolve(name + ".gz"));
        else if (!pack && name.endsWith(".gz") && isGzipped(name.substring(0, name.length() - 3))) {
          gunzip(f, tmp.resolve(name.substring(0, name.length() - 3)));
        } else Files.copy(f, tmp.resolve(name));
      }
    }
    Path cks = Files.createDirectories(Checkpoints.dir(tmp));
    copyCheckpoint(ck, cks.resolve(ck.getFileName()), portable);
    Files.writeString(cks.resolve("latest"), ck.getFileName() + "\n");
    return tmp;
  }

  private static boolean isGzipped(String name) {
    for (String g : GZIPPED) if (g.equals(name)) return true;
    return false;
  }

  private static void copyCheckpoint(Path from, Path to, boolean portable) throws IOException {
    Files.createDirectories(to);
    try (var s = Files.list(from)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (portable && name.equals(TRAINER)) gzip(f, to.resolve(TRAINER + ".gz"));
        else if (name.equals(TRAINER + ".gz")) gunzip(f, to.resolve(TRAINER));
        else Files.copy(f, to.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  private static void gzip(Path from, Path to) throws IOException {
    try (InputStream in = Files.newInputStream(from); OutputStream out = new GZIPOutputStream(Files.newOutputStream(to), 1 << 16)) {
      in.transferTo(out);
    }
  }

  private static void gunzip(Path from, Path to) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(from), 1 << 16); OutputStream out = Files.newOutputStream(to)) {
      in.transferTo(out);
    }
  }
}
