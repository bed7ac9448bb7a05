package dev.speedrun.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The safetensors file format (huggingface/safetensors), so PyTorch users can load our weights:
 *
 * <pre>
 *   8 bytes     N, the header length, unsigned little-endian
 *   N bytes     JSON: {"__metadata__": {string: string}, name: {"dtype": "F32", "shape": [..],
 *               "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
 *   rest        the tensors' bytes, little-endian, offsets relative to the start of this part;
 *               tensors cover it exactly, without holes or overlaps
 * </pre>
 *
 * Supported dtypes: F32, I64, I32, U8. Files are written atomically (temp file, fsync, rename). A
 * truncated, corrupted or inconsistent file is refused with one {@link UserError} sentence.
 */
public final class Safetensors {
  private Safetensors() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAX_HEADER = 100L << 20;

  public enum DType {
    F32(4), I64(8), I32(4), U8(1);

    public final int bytes;

    DType(int bytes) { this.bytes = bytes; }
  }

  /** One tensor: data is a float[], long[], int[] or byte[] matching the dtype, row-major. */
  public record Tensor(String name, DType dtype, long[] shape, Object data) {
    public Tensor {
      long n = 1;
      for (long d : shape) {
        if (d < 0) throw new IllegalArgumentException("negative dimension in " + name);
        n *= d;
      }
      int len = switch (dtype) {
        case F32 -> ((float[]) data).length;
        case I64 -> ((long[]) data).length;
        case I32 -> ((int[]) data).length;
        case U8 -> ((byte[]) data).length;
      };
      if (len != n) throw new IllegalArgumentException(name + ": " + len + " values for shape " + Arrays.toString(shape));
    }

    public static Tensor f32(String name, float[] data, long... shape) { return new Tensor(name, DType.F32, shape, data); }
    public static Tensor i64(String name, long[] data, long... shape) { return new Tensor(name, DType.I64, shape, data); }
    public static Tensor i32(String name, int[] data, long... shape) { return new Tensor(name, DType.I32, shape, data); }
    public static Tensor u8(String name, byte[] data, long... shape) { return new Tensor(name, DType.U8, shape, data); }

    public float[] floats() { return (float[]) data; }
    public long[] longs() { return (long[]) data; }
    public int[] ints() { return (int[]) data; }
    public byte[] bytes() { return (byte[]) data; }

    long byteSize() { return numel() * dtype.bytes; }

    public long numel() {
      long n = 1;
      for (long d : shape) n *= d;
      return n;
    }
  }

  /** A file's contents: metadata and tensors in file order. */
  public record Contents(Map<String, String> metadata, Map<String, Tensor> tensors) {
    /** The tensor called {@code name}, or a UserError naming the file. */
    public Tensor require(Path file, String name) {
      Tensor t = tensors.get(name);
      if (t == null) throw new UserError(file + ": checkpoint has no tensor named " + name);
      return t;
    }
  }

  public static void write(Path file, Map<String, String> metadata, List<Tensor> tensors) throws IOException {
    ObjectNode header = JSON.createObjectNode();
    if (metadata != null && !metadata.isEmpty()) {
      ObjectNode m = header.putObject("__metadata__");
      metadata.forEach(m::put);
    }
    long offset = 0;
    for (Tensor t : tensors) {
      if (t.name().equals("__metadata__") || header.has(t.name())) throw new IllegalArgumentException("duplicate or reserved tensor name " + t.name());
      ObjectNode e = header.putObject(t.name());
      e.put("dtype", t.dtype().name());
      ArrayNode shape = e.putArray("shape");
      for (long d : t.shape()) shape.add(d);
      ArrayNode off = e.putArray("data_offsets");
      off.add(offset);
      off.add(offset + t.byteSize());
      offset += t.byteSize();
    }
    byte[] json = JSON.writeValueAsBytes(header);
    int padded = (json.length + 7) / 8 * 8;
    ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(padded).put(json);
    while (head.hasRemaining()) head.put((byte) ' ');
    head.flip();

    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file.getFileName().toString() + ".", ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        writeFully(ch, head);
        ByteBuffer buf = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        for (Tensor t : tensors) writeData(ch, buf, t);
        buf.flip();
        writeFully(ch, buf);
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void writeData(FileChannel ch, ByteBuffer buf, Tensor t) throws IOException {
    int n = (int) t.numel();
    for (int i = 0; i < n; i++) {
      if (buf.remaining() < 8) {
        buf.flip();
        writeFully(ch, buf);
        buf.clear();
      }
      switch (t.dtype()) {
        case F32 -> buf.putFloat(t.floats()[i]);
        case I64 -> buf.putLong(t.longs()[i]);
        case I32 -> buf.putInt(t.ints()[i]);
        case U8 -> buf.put(t.bytes()[i]);
      }
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) ch.write(b);
  }

  /** Reads a whole file; every inconsistency is a UserError naming the file. */
  public static Contents read(Path file) {
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new UserError(file + ": no such checkpoint file");
    } catch (IOException e) {
      throw new UserError(file + ": cannot read checkpoint (" + e.getMessage() + ")");
    }
    String where = file + ": not a valid safetensors file: ";
    if (all.length < 8) throw new UserError(where + "shorter than the 8-byte header length");
    ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    long n = bb.getLong(0);
    if (n < 2 || n > MAX_HEADER || n > all.length - 8) {
      throw new UserError(where + "header length " + Long.toUnsignedString(n) + " does not fit the file's " + all.length + " bytes (truncated or corrupted)");
    }
    JsonNode header;
    try {
      header = JSON.readTree(new String(all, 8, (int) n, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UserError(where + "header is not valid JSON (corrupted)");
    }
    if (header == null || !header.isObject()) throw new UserError(where + "header is not a JSON object");
    int dataStart = 8 + (int) n;
    long dataLen = all.length - dataStart;

    Map<String, String> meta = new LinkedHashMap<>();
    JsonNode m = header.get("__metadata__");
    if (m != null) {
      if (!m.isObject()) throw new UserError(where + "__metadata__ is not a string map");
      for (Iterator<Map.Entry<String, JsonNode>> it = m.fields(); it.hasNext(); ) {
        var e = it.next();
        if (!e.getValue().isTextual()) throw new UserError(where + "metadata value of " + e.getKey() + " is not a string");
        meta.put(e.getKey(), e.getValue().asText());
      }
    }

    record Span(String name, long begin, long end, DType dtype, long[] shape) {}
    List<Span> spans = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
      var e = it.next();
      String name = e.getKey();
      if (name.equals("__metadata__")) continue;
      JsonNode t = e.getValue();
      String bad = where + "tensor " + name + " ";
      if (!t.isObject() || !t.path("dtype").isTextual() || !t.path("shape").isArray() || !t.path("data_offsets").isArray()
          || t.path("data_offsets").size() != 2) {
        throw new UserError(bad + "lacks dtype, shape or data_offsets");
      }
      DType dt;
      try {
        dt = DType.valueOf(t.get("dtype").asText());
      } catch (IllegalArgumentException ex) {
        throw new UserError(bad + "has unsupported dtype " + t.get("dtype").asText() + " (supported: F32, I64, I32, U8)");
      }
      long[] shape = new long[t.get("shape").size()];
      long numel = 1;
      for (int i = 0; i < shape.length; i++) {
        JsonNode d = t.get("shape").get(i);
        if (!d.canConvertToLong() || d.asLong() < 0) throw new UserError(bad + "has a bad shape");
        shape[i] = d.asLong();
        try {
          numel = Math.multiplyExact(numel, shape[i]);
        } catch (ArithmeticException ex) {
          throw new UserError(bad + "has a shape too large to exist");
        }
      }
      JsonNode b0 = t.get("data_offsets").get(0), b1 = t.get("data_offsets").get(1);
      if (!b0.canConvertToLong() || !b1.canConvertToLong()) throw new UserError(bad + "has bad data_offsets");
      long begin = b0.asLong(), end = b1.asLong();
      if (begin < 0 || end < begin || end > dataLen) {
        throw new UserError(bad + "data_offsets [" + begin + ", " + end + "] lie outside the " + dataLen + " data bytes (truncated or corrupted)");
      }
      if (end - begin != numel * dt.bytes) throw new UserError(bad + "has " + (end - begin) + " bytes but its shape and dtype need " + numel * dt.bytes);
      if (numel > Integer.MAX_VALUE - 8) throw new UserError(bad + "is too large");
      spans.add(new Span(name, begin, end, dt, shape));
    }
    List<Span> sorted = new ArrayList<>(spans);
    sorted.sort((a, b) -> Long.compare(a.begin, b.begin));
    long covered = 0;
    for (Span s : sorted) {
      if (s.begin != covered) throw new UserError(where + "tensor data overlaps or leaves a hole at byte " + covered + " (corrupted)");
      covered = s.end;
    }
    if (covered != dataLen) throw new UserError(where + "file has " + dataLen + " data bytes but the header describes " + covered + " (truncated or corrupted)");

    Map<String, Tensor> tensors = new LinkedHashMap<>();
    for (Span s : spans) {
      ByteBuffer d = ByteBuffer.wrap(all, dataStart + (int) s.begin, (int) (s.end - s.begin)).slice().order(ByteOrder.LITTLE_ENDIAN);
      int count = (int) ((s.end - s.begin) / s.dtype.bytes);
      Object data = switch (s.dtype) {
        case F32 -> { float[] a = new float[count]; d.asFloatBuffer().get(a); yield a; }
        case I64 -> { long[] a = new long[count]; d.asLongBuffer().get(a); yield a; }
        case I32 -> { int[] a = new int[count]; d.asIntBuffer().get(a); yield a; }
        case U8 -> { byte[] a = new byte[count]; d.get(a); yield a; }
      };
      tensors.put(s.name, new Tensor(s.name, s.dtype, s.shape, data));
    }
    return new Contents(meta, tensors);
  }
}
