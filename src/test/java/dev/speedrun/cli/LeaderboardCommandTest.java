package dev.speedrun.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderboardCommandTest {
  static final String README = "# X\n\n## Leaderboard\n\n<!-- leaderboard -->\n| a made-up row |\n<!-- /leaderboard -->\n";

  /** A mistyped --records is an error in one sentence and leaves the README's table alone. */
  @Test
  void missingRecordsFolderIsAnErrorAndTheReadmeIsUntouched(@TempDir Path tmp) throws Exception {
    Path readme = tmp.resolve("README.md");
    Files.writeString(readme, README);
    String[] r = EvalCommandTest.run("leaderboard", "--records", tmp.resolve("recrods").toString(), "--readme",
        readme.toString());
    assertThat(r[0]).isNotEqualTo("0");
    assertThat(r[2]).contains("no such folder").doesNotContain("Exception");
    assertThat(Files.readString(readme)).isEqualTo(README);
  }

  /** An existing folder without records renders the empty table. */
  @Test
  void emptyRecordsFolderSaysNoRecordYet(@TempDir Path tmp) throws Exception {
    Path readme = tmp.resolve("README.md");
    Files.writeString(readme, README);
    Files.createDirectories(tmp.resolve("records"));
    String[] r = EvalCommandTest.run("leaderboard", "--records", tmp.resolve("records").toString(), "--readme",
        readme.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(Files.readString(readme)).contains("No record yet.").doesNotContain("made-up row");
  }
}
