package dev.speedrun.rl;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.speedrun.UserError;
import dev.speedrun.nn.Policies;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Checkpoints of a run directory, each written whole or not at all, so that {@code kill -9} at any
 * moment leaves the run directory usable:
 *
 * <pre>
 *   RUN/checkpoints/it-000050/policy.safetensors   the policy (nn.Policies format, for the evaluator)
 *   RUN/checkpoints/it-000050/trainer.bin          everything else that determines the future (CRC32-checked)
 *   RUN/checkpoints/it-000050/meta.json            iteration, global_step, train_seconds, ...
 *   RUN/checkpoints/latest                         the name of the newest complete checkpoint
 * </pre>
 *
 * A checkpoint is written into {@code .tmp-it-000050}, synced, renamed into place, and only then
 * named in {@code latest} (itself replaced by an atomic rename). Only the newest {@value #KEEP_STATES}
 * checkpoints keep {@code trainer.bin} (about 3x the policy's size: Adam moments, environments,
 * recurrent states); older ones keep the policy and meta.json, enough to score or watch them, and a
 * 300M-step run stays a few hundred MB instead of gigabytes.
 */
public final class Checkpoints {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAGIC = 0x53525452; // "SRTR"
  private static final int VERSION = 1;

  /** How many of the newest checkpoints keep their trainer state (the resumable ones). */
  public static final int KEEP_STATES = 2;

  private Checkpoints() {}

  public static Path dir(Path run) { return run.resolve("checkpoints"); }

  /** Writes the trainer's checkpoint; {@code meta} is completed with iteration and global step. */
  public static Path write(Path run, Trainer tr, Map<String, Object> meta, java.util.function.Supplier<Double> clock) throws IOException {
    String name = String.format("it-%06d", tr.iteration());
    Path dir = dir(run);
    Files.createDirectories(dir);
    Path tmp = dir.resolve(".tmp-" + name);
    deleteTree(tmp);
    Files.createDirectories(tmp);
    // A sorted map: Map.of's iteration order changes from one JVM to the next, and the bytes must not.
    Map<String, String> policyMeta = new java.util.TreeMap<>();
    policyMeta.put("iteration", Long.toString(tr.iteration()));
    policyMeta.put("global_step", Long.toString(tr.globalStep()));
    policyMeta.put("seed", Long.toString(tr.seed));
    Policies.save(tmp.resolve("policy.safetensors"), tr.policy(), policyMeta);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeLong(tr.seed);
      out.writeUTF(tr.recipe.toString());
      tr.save(out);
    }
    writeSynced(tmp.resolve("trainer.bin"), sealed(bytes.toByteArray()));
    meta.put("iteration", tr.iteration());
    meta.put("global_step", tr.globalStep());
    meta.put("train_seconds", clock.get());
    writeSynced(tmp.resolve("meta.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(meta));
    Path target = dir.resolve(name);
    deleteTree(target);
    move(tmp, target);
    atomicWrite(dir.resolve("latest"), (name + "\n").getBytes(StandardCharsets.UTF_8));
    pruneStates(run, KEEP_STATES);
    return target;
  }

  /**
   * Deletes trainer.bin from every checkpoint of {@code run} but the newest {@code keep} (by
   * iteration) and the one {@code latest} names; returns how many were deleted.
   */
  static int pruneStates(Path run, int keep) throws IOException {
    Path d = dir(run);
    java.util.List<Path> cks;
    try (var s = Files.list(d)) {
      cks = s.filter(p -> p.getFileName().toString().matches("it-\\d+") && Files.isDirectory(p))
          .sorted(Comparator.comparing((Path p) -> Long.parseLong(p.getFileName().toString().substring(3))).reversed())
          .toList();
    }
    Path l = d.resolve("latest");
    String latest = Files.isRegularFile(l) ? Files.readString(l).trim() : "";
    int deleted = 0;
    for (int i = keep; i < cks.size(); i++) {
      Path c = cks.get(i);
      if (c.getFileName().toString().equals(latest)) continue;
      if (Files.deleteIfExists(c.resolve("trainer.bin"))) deleted++;
    }
    return deleted;
  }

  /** The newest complete checkpoint of {@code run}, or a user error if there is none. */
  public static Path latest(Path run) {
    Path l = dir(run).resolve("latest");
    if (!Files.isRegularFile(l)) throw new UserError(run + " has no checkpoint yet (no " + l + ")");
    try {
      Path c = dir(run).resolve(Files.readString(l).trim());
      if (!Files.isDirectory(c)) throw new UserError(l + " names " + c + ", which does not exist");
      return c;
    } catch (IOException e) {
      throw new UserError("cannot read " + l + ": " + e.getMessage());
    }
  }

  /**
   * Refuses a checkpoint whose resume state is packed (trainer.bin.gz of a portable kept run, see
   * {@link KeptRun}) with the sentence that says how to unpack it.
   */
  static void requireUnpacked(Path ckpt) {
    if (!Files.exists(ckpt.resolve("trainer.bin")) && Files.exists(ckpt.resolve("trainer.bin.gz"))) {
      throw new UserError(ckpt + " holds a packed trainer.bin.gz (a kept run): make a run directory from it with"
          + " ./speedrun keep --restore KEPT RUN, then resume RUN");
    }
  }

  /** Restores {@code tr} from checkpoint directory {@code ckpt}. */
  public static void read(Path ckpt, Trainer tr) {
    requireUnpacked(ckpt);
    Path f = ckpt.resolve("trainer.bin");
    try (DataInputStream in = opened(Files.readAllBytes(f), f)) {
      long seed = in.readLong();
      String recipe = in.readUTF();
      if (seed != tr.seed) throw new UserError(f + " was written with seed " + seed + ", not " + tr.seed);
      if (!tr.recipe.matchesStored(recipe)) {
        throw new UserError(f + " was written with another recipe (the code's Recipe changed since, or its overrides differ): "
            + recipe);
      }
      tr.load(in);
    } catch (IOException e) {
      throw new UserError("cannot read checkpoint " + f + ": " + e.getMessage());
    }
  }

  /**
   * trainer.bin's bytes {@code all} (read from {@code f}) with the recipe in its header replaced by
   * {@code recipe}'s and a new CRC, after checking that they are intact and were written with
   * {@code seed} by {@code old} (for {@link Fork}: the same state, continued under a changed recipe).
   */
  static byte[] withRecipe(byte[] all, Path f, long seed, Recipe old, Recipe recipe) throws IOException {
    try (DataInputStream in = opened(all, f)) {
      long s = in.readLong();
      String stored = in.readUTF();
      if (s != seed) throw new UserError(f + " was written with seed " + s + ", not the run's " + seed);
      if (!old.matchesStored(stored)) throw new UserError(f + " was written with another recipe than its run.json holds: " + stored);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(all.length + 256);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeLong(s);
        out.writeUTF(recipe.toString());
        in.transferTo(out);
      }
      return sealed(bytes.toByteArray());
    }
  }

  /** {@code body} with its CRC32 appended (trainer.bin's last 8 bytes). */
  private static byte[] sealed(byte[] body) {
    CRC32 crc = new CRC32();
    crc.update(body);
    byte[] all = java.util.Arrays.copyOf(body, body.length + 8);
    java.nio.ByteBuffer.wrap(all, body.length, 8).putLong(crc.getValue());
    return all;
  }

  /** trainer.bin's bytes after their CRC and magic are checked, positioned at the seed. */
  private static DataInputStream opened(byte[] all, Path f) throws IOException {
    if (all.length < 16) throw new UserError(f + " is damaged (truncated)");
    CRC32 crc = new CRC32();
    crc.update(all, 0, all.length - 8);
    if (crc.getValue() != java.nio.ByteBuffer.wrap(all, all.length - 8, 8).getLong()) {
      throw new UserError(f + " is damaged (checksum mismatch)");
    }
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(all, 0, all.length - 8));
    if (in.readInt() != MAGIC || in.readInt() != VERSION) throw new UserError(f + " is not a trainer checkpoint of this version");
    return in;
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> meta(Path ckpt) {
    try {
      return JSON.readValue(ckpt.resolve("meta.json").toFile(), Map.class);
    } catch (IOException e) {
      throw new UserError("cannot read " + ckpt.resolve("meta.json") + ": " + e.getMessage());
    }
  }

  /** Removes leftovers of checkpoints that were being written when a process died. */
  public static void cleanTemporaries(Path run) throws IOException {
    Path d = dir(run);
    if (!Files.isDirectory(d)) return;
    try (var s = Files.list(d)) {
      for (Path p : s.toList()) if (p.getFileName().toString().startsWith(".tmp-")) deleteTree(p);
    }
  }

  /** Writes {@code bytes} to {@code file} through a synced temporary and an atomic rename. */
  public static void atomicWrite(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
    writeSynced(tmp, bytes);
    move(tmp, file);
  }

  private static void writeSynced(Path file, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) ch.write(b);
      ch.force(true);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (var s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
    }
  }
}
