package dev.speedrun.nn;

import dev.speedrun.UserError;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Saving and loading policies as safetensors files: one F32 tensor per {@link Params} tensor, under
 * its name (so {@code safetensors.torch.load_file} gives a PyTorch user the weights by name), and
 * the architecture as JSON in metadata key {@value #POLICY_KEY}. Loading ignores tensors it does
 * not know, so the trainer can keep optimizer state and counters in the same file.
 */
public final class Policies {
  private Policies() {}

  /** Metadata key holding the policy's config ({@link DefaultPolicy.Config} or {@link ConvPolicy.Config}) as JSON. */
  public static final String POLICY_KEY = "policy";
  /** Metadata key naming the implementation. */
  public static final String TYPE_KEY = "policy_type";

  /** A loaded policy, the file's metadata and all its tensors (for the trainer's extras). */
  public record Loaded(PolicyNet policy, Map<String, String> metadata, Safetensors.Contents contents) {}

  public static void save(Path file, PolicyNet net, Map<String, String> extraMetadata) throws IOException {
    save(file, net, extraMetadata, List.of());
  }

  /** Saves the policy plus extra tensors (optimizer state, counters) in one atomic write. */
  public static void save(Path file, PolicyNet net, Map<String, String> extraMetadata, List<Safetensors.Tensor> extraTensors)
      throws IOException {
    String json, type;
    if (net instanceof DefaultPolicy dp) {
      json = dp.config().toJson();
      type = "DefaultPolicy";
    } else if (net instanceof ConvPolicy cp) {
      json = cp.config().toJson();
      type = "ConvPolicy";
    } else if (net instanceof ConvGruPolicy gp) {
      json = gp.config().toJson();
      type = "ConvGruPolicy";
    } else {
      throw new IllegalArgumentException("cannot save " + net.getClass().getName());
    }
    Map<String, String> meta = new LinkedHashMap<>();
    if (extraMetadata != null) meta.putAll(extraMetadata);
    meta.put(POLICY_KEY, json);
    meta.put(TYPE_KEY, type);
    meta.put("format", "pt"); // what transformers' loaders expect of a PyTorch-origin file
    List<Safetensors.Tensor> ts = new ArrayList<>(tensorsOf(net.params()));
    if (extraTensors != null) ts.addAll(extraTensors);
    Safetensors.write(file, meta, ts);
  }

  /** The parameters as safetensors tensors (copies), named and shaped as in {@link Params}. */
  public static List<Safetensors.Tensor> tensorsOf(Params p) {
    List<Safetensors.Tensor> out = new ArrayList<>();
    for (Params.Tensor t : p.tensors()) {
      long[] shape = Arrays.stream(t.shape()).asLongStream().toArray();
      out.add(Safetensors.Tensor.f32(t.name(), Arrays.copyOfRange(p.data, t.offset(), t.offset() + t.size()), shape));
    }
    return out;
  }

  public static PolicyNet load(Path file) {
    return open(file).policy();
  }

  public static Loaded open(Path file) {
    Safetensors.Contents c = Safetensors.read(file);
    String type = c.metadata().getOrDefault(TYPE_KEY, "DefaultPolicy");
    if (!type.equals("DefaultPolicy") && !type.equals("ConvPolicy") && !type.equals("ConvGruPolicy")) throw new UserError(file + ": unknown policy type " + type);
    String json = c.metadata().get(POLICY_KEY);
    if (json == null) throw new UserError(file + ": not a policy checkpoint (no \"" + POLICY_KEY + "\" metadata)");
    PolicyNet net;
    try {
      net = switch (type) {
        case "ConvPolicy" -> new ConvPolicy(ConvPolicy.Config.fromJson(json));
        case "ConvGruPolicy" -> new ConvGruPolicy(ConvGruPolicy.Config.fromJson(json));
        default -> new DefaultPolicy(DefaultPolicy.Config.fromJson(json));
      };
    } catch (UserError e) {
      throw new UserError(file + ": " + e.getMessage());
    }
    copyInto(file, c, net.params());
    return new Loaded(net, c.metadata(), c);
  }

  /** Copies every Params tensor from the file, checking dtype and shape. */
  public static void copyInto(Path file, Safetensors.Contents c, Params p) {
    for (Params.Tensor t : p.tensors()) {
      Safetensors.Tensor s = c.require(file, t.name());
      long[] want = Arrays.stream(t.shape()).asLongStream().toArray();
      if (s.dtype() != Safetensors.DType.F32 || !Arrays.equals(s.shape(), want)) {
        throw new UserError(file + ": tensor " + t.name() + " is " + s.dtype() + Arrays.toString(s.shape())
            + " but the policy needs F32" + Arrays.toString(want));
      }
      System.arraycopy(s.floats(), 0, p.data, t.offset(), t.size());
    }
  }
}
