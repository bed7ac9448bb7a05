package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The machine description logged for each segment of a run. */
class RunInfoTest {
  @Test
  void cpuNamesModelFamilyAndModelOfTheFirstProcessor() {
    List<String> zen3 = List.of("processor\t: 0", "vendor_id\t: AuthenticAMD", "cpu family\t: 25", "model\t\t: 1",
        "model name\t: AMD EPYC", "flags\t\t: fpu avx2 fma", "", "processor\t: 1", "cpu family\t: 26", "model\t\t: 2",
        "model name\t: Other");
    assertThat(RunInfo.cpu(zen3)).isEqualTo("AMD EPYC (family 25, model 1)");
    assertThat(RunInfo.cpu(List.of("model name\t: Some CPU"))).isEqualTo("Some CPU");
    assertThat(RunInfo.cpu(List.of("processor\t: 0", "Features\t: neon"))).isEqualTo(System.getProperty("os.arch"));
  }

  @Test
  void machineSaysCoresAndVectorWidth() {
    assertThat(RunInfo.vectorBits()).isIn(128, 256, 512);
    assertThat(RunInfo.machine()).isEqualTo(RunInfo.cpu() + ", " + RunInfo.cores() + " cores, " + RunInfo.vectorBits() + "-bit vectors");
  }
}
