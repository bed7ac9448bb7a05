package dev.speedrun.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.speedrun.nn.NnBench;
import dev.speedrun.nn.Workers;
import java.io.PrintWriter;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code ./speedrun bench nn}: FMA peak, kernel GFLOP/s, default-policy timings. */
@Command(name = "nn", mixinStandardHelpOptions = true,
    description = "Network engine speed: fp32 FMA peak (1 and 2 threads), GFLOP/s of each matmul layout at the "
        + "default policy's shapes, forward+backward and rollout-step microseconds of the default policy.")
public final class BenchNnCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Option(names = "--seconds", description = "Measuring time per figure (default ${DEFAULT-VALUE}).")
  double seconds = 0.5;

  @Override
  public Integer call() throws Exception {
    if (!(seconds > 0 && seconds <= 60)) throw new dev.speedrun.UserError("--seconds must be in (0, 60], got " + seconds);
    PrintWriter out = spec.commandLine().getOut();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("command", "./speedrun bench nn --seconds " + seconds);
    r.put("date", LocalDate.now(ZoneOffset.UTC).toString());
    r.put("cpu", dev.speedrun.rl.RunInfo.cpu());
    r.put("cores", Runtime.getRuntime().availableProcessors());
    r.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    r.put("vector_bits", dev.speedrun.rl.RunInfo.vectorBits());
    double peak1 = NnBench.fmaPeak(1, seconds), peak2 = NnBench.fmaPeak(2, seconds);
    r.put("peak_gflops_1_thread", peak1);
    r.put("peak_gflops_2_threads", peak2);
    List<NnBench.KernelResult> kernels = new ArrayList<>();
    List<NnBench.PolicyResult> policy = new ArrayList<>();
    for (int threads = 1; threads <= 2; threads++) {
      try (Workers w = new Workers(threads)) {
        NnBench.kernels(w, seconds * 0.2); // warm-up: let the JIT compile every path first
        kernels.addAll(NnBench.kernels(w, seconds));
        policy.add(NnBench.trainStep(16, 64, w, seconds));
        policy.add(NnBench.trainStep(32, 128, w, seconds));
        policy.add(NnBench.rolloutStep(256, w, seconds));
        policy.add(NnBench.rolloutStep(1024, w, seconds));
      }
    }
    r.put("kernels", kernels);
    r.put("policy", policy);
    if (json) {
      out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(r));
      return 0;
    }
    out.printf("nn bench: %s, %d cores, %s, %d-bit vectors, %s%n", r.get("cpu"), r.get("cores"), r.get("java"), r.get("vector_bits"), r.get("date"));
    out.printf("fp32 FMA peak: %.1f GFLOP/s on 1 thread, %.1f on 2%n%n", peak1, peak2);
    out.printf("%-6s %-16s %14s %8s %14s %8s%n", "kernel", "C[m][n], k", "1 thread GF/s", "% peak", "2 threads GF/s", "scaling");
    int half = kernels.size() / 2;
    for (int i = 0; i < half; i++) {
      var a = kernels.get(i);
      var b = kernels.get(i + half);
      out.printf("%-6s %-16s %14.1f %7.0f%% %14.1f %7.2fx%n", a.kernel(), a.m() + "x" + a.n() + "x" + a.k(), a.gflops(),
          100 * a.gflops() / peak1, b.gflops(), b.gflops() / a.gflops());
    }
    out.printf("%ndefault policy (%s):%n", "H=128, L=2 minGRU, 151,174 parameters");
    int ph = policy.size() / 2;
    for (int i = 0; i < ph; i++) {
      var a = policy.get(i);
      var b = policy.get(i + ph);
      String shape = a.what().equals("rollout step") ? "n=" + a.b() + " envs" : "T=" + a.t() + " B=" + a.b();
      String unit = a.what().equals("rollout step") ? "us/env" : "us/sample";
      out.printf("  %-17s %-14s %8.2f %s on 1 thread, %8.2f on 2%n", a.what(), shape, a.microsPerSample(), unit, b.microsPerSample());
    }
    return 0;
  }
}
