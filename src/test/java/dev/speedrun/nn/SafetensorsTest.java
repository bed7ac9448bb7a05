package dev.speedrun.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.speedrun.UserError;
import dev.speedrun.env.Rng;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetensorsTest {
  @TempDir Path dir;

  @Test
  void roundTripIsBitExactForEveryDtype() throws Exception {
    Rng rng = new Rng(1);
    float[] f = new float[37];
    for (int i = 0; i < f.length; i++) f[i] = Float.intBitsToFloat((int) rng.nextLong()); // NaNs, infinities, subnormals
    long[] l = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, rng.nextLong()};
    int[] n = {Integer.MIN_VALUE, -7, 0, 42, Integer.MAX_VALUE};
    byte[] u = {0, 1, (byte) 255, (byte) 128};
    Path file = dir.resolve("a.safetensors");
    Safetensors.write(file, Map.of("k", "v", "policy", "{\"x\":1}"), List.of(
        Safetensors.Tensor.f32("f", f, 37), Safetensors.Tensor.i64("l", l, 2, 3), Safetensors.Tensor.i32("n", n, 5),
        Safetensors.Tensor.u8("u", u, 4, 1), Safetensors.Tensor.f32("empty", new float[0], 0, 3)));
    Safetensors.Contents c = Safetensors.read(file);
    assertThat(c.metadata()).containsEntry("k", "v").containsEntry("policy", "{\"x\":1}");
    float[] g = c.tensors().get("f").floats();
    for (int i = 0; i < f.length; i++) assertThat(Float.floatToRawIntBits(g[i])).isEqualTo(Float.floatToRawIntBits(f[i]));
    assertThat(c.tensors().get("l").longs()).containsExactly(l);
    assertThat(c.tensors().get("l").shape()).containsExactly(2, 3);
    assertThat(c.tensors().get("n").ints()).containsExactly(n);
    assertThat(c.tensors().get("u").bytes()).containsExactly(u);
    assertThat(c.tensors().get("empty").shape()).containsExactly(0, 3);
    assertThat(c.tensors().keySet()).containsExactly("f", "l", "n", "u", "empty");
    assertThat(Files.list(dir).toList()).containsExactly(file); // no temp file left
  }

  @Test
  void layoutFollowsTheSpecification() throws Exception {
    Path file = dir.resolve("b.safetensors");
    Safetensors.write(file, Map.of(), List.of(Safetensors.Tensor.f32("w", new float[] {1f, -2f}, 1, 2)));
    byte[] b = Files.readAllBytes(file);
    ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    long n = bb.getLong(0);
    assertThat(n % 8).isZero();
    String header = new String(b, 8, (int) n, StandardCharsets.UTF_8).strip();
    assertThat(header).isEqualTo("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,8]}}");
    assertThat(b.length).isEqualTo(8 + n + 8);
    assertThat(bb.getFloat(8 + (int) n)).isEqualTo(1f);
    assertThat(bb.getFloat(8 + (int) n + 4)).isEqualTo(-2f);
  }

  @Test
  void readsAHandWrittenFile() throws Exception {
    // As written by the reference implementation: tensors in any header order, no padding.
    String h = "{\"b\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[4,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}";
    byte[] hb = h.getBytes(StandardCharsets.UTF_8);
    ByteBuffer bb = ByteBuffer.allocate(8 + hb.length + 8).order(ByteOrder.LITTLE_ENDIAN);
    bb.putLong(hb.length).put(hb).putFloat(0.5f).putInt(-3);
    Path file = dir.resolve("c.safetensors");
    Files.write(file, bb.array());
    var c = Safetensors.read(file);
    assertThat(c.tensors().get("a").floats()).containsExactly(0.5f);
    assertThat(c.tensors().get("a").shape()).isEmpty();
    assertThat(c.tensors().get("b").ints()).containsExactly(-3);
  }

  @Test
  void damagedFilesAreRefusedWithOneSentence() throws Exception {
    Path file = dir.resolve("d.safetensors");
    Safetensors.write(file, Map.of("a", "b"), List.of(Safetensors.Tensor.f32("w", new float[100], 10, 10)));
    byte[] good = Files.readAllBytes(file);
    int n = (int) ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getLong(0);

    Path p = dir.resolve("bad.safetensors");
    Files.write(p, java.util.Arrays.copyOf(good, good.length - 1));
    assertRefused(p, "truncated");
    Files.write(p, java.util.Arrays.copyOf(good, 5));
    assertRefused(p, "shorter");
    Files.write(p, java.util.Arrays.copyOf(good, 8 + n / 2));
    assertRefused(p, "header length");
    byte[] extra = java.util.Arrays.copyOf(good, good.length + 4);
    Files.write(p, extra);
    assertRefused(p, "data bytes");
    byte[] json = good.clone();
    json[8] = '[';
    Files.write(p, json);
    assertRefused(p, "");
    byte[] brace = good.clone();
    brace[9] = '#';
    Files.write(p, brace);
    assertRefused(p, "JSON");
    assertRefused(dir.resolve("missing.safetensors"), "no such");
  }

  @Test
  void offsetsThatDisagreeWithTheShapeAreRefused() throws Exception {
    String h = "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}";
    byte[] hb = h.getBytes(StandardCharsets.UTF_8);
    ByteBuffer bb = ByteBuffer.allocate(8 + hb.length + 8).order(ByteOrder.LITTLE_ENDIAN);
    bb.putLong(hb.length).put(hb);
    Path file = dir.resolve("e.safetensors");
    Files.write(file, bb.array());
    assertRefused(file, "shape and dtype need 12");
    String h2 = "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]}}";
    hb = h2.getBytes(StandardCharsets.UTF_8);
    bb = ByteBuffer.allocate(8 + hb.length + 8).order(ByteOrder.LITTLE_ENDIAN);
    bb.putLong(hb.length).put(hb);
    Files.write(file, bb.array());
    assertRefused(file, "unsupported dtype BF16");
  }

  static void assertRefused(Path p, String fragment) {
    assertThatThrownBy(() -> Safetensors.read(p)).isInstanceOf(UserError.class)
        .hasMessageContaining(p.toString()).hasMessageContaining(fragment)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
