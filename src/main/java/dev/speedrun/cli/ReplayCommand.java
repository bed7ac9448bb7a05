package dev.speedrun.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.speedrun.UserError;
import dev.speedrun.env.BoxobanEnv;
import dev.speedrun.env.Replay;
import dev.speedrun.sokoban.Formats;
import dev.speedrun.sokoban.Level;
import dev.speedrun.sokoban.LevelSources;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./speedrun replay}: plays actions on a level under the environment's rules. */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Plays actions on a level with the environment's rules and rewards; actions are applied",
        "until the first done (solve, or step 120) and the rest ignored. Prints the final board (XSB),",
        "the return, whether solved, the steps applied and the 1-based step of the done (done_at).",
        "--batch reads JSONL cases {\"level\": \"<XSB or Boxoban text>\", \"actions\": \"...\"} and writes",
        "one JSONL result per case: final, return, solved, steps, done_at."})
public final class ReplayCommand implements Callable<Integer> {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Option(names = "--level", paramLabel = "SPEC",
      description = "A level file (XSB, reasoning-gym, one-level Boxoban), FILE#N, or an address like unfiltered/test/000.txt#17.")
  String level;

  @Option(names = "--actions", paramLabel = "MOVES", description = "U/D/L/R letters or action ids 0-4 (0 noop, 1 down, 2 up, 3 left, 4 right).")
  String actions;

  @Option(names = "--batch", paramLabel = "FILE", description = "JSONL file of cases ('-' for standard input).")
  String batch;

  @Option(names = "--format", paramLabel = "FMT", description = "Board format of --level or of batch boards: xsb, boxoban, rg (default: file type / XSB).")
  String format;

  @Option(names = "--levels", paramLabel = "DIR", description = "Boxoban levels root for addresses.")
  String levels;

  @Option(names = "--max-steps", defaultValue = "120", description = "Episode length limit (default ${DEFAULT-VALUE}).")
  int maxSteps;

  @Option(names = "--json", description = "Machine-readable output.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    BoxobanEnv.Rewards rw = new BoxobanEnv.Rewards(0.25f, 1f, -1f, maxSteps);
    Formats.Format fmt = format == null ? null : Formats.Format.of(format);
    if (batch != null) {
      if (level != null || actions != null) throw new UserError("--batch replaces --level and --actions; give one or the other");
      runBatch(rw, fmt);
      return 0;
    }
    if (level == null || actions == null) throw new UserError("give --level and --actions, or --batch FILE");
    Level l = LevelSources.level(level, levels, fmt);
    Replay.Result r = Replay.run(l, Replay.parseActions(actions, "--actions"), rw);
    if (json) {
      System.out.println(MAPPER.writeValueAsString(toJson(r)));
    } else {
      System.out.println(r.finalBoard().toXsb());
      System.out.println("return: " + r.ret());
      System.out.println("solved: " + r.solved());
      System.out.println("steps: " + r.steps());
      System.out.println("done_at: " + (r.doneAt() == null ? "null" : r.doneAt()));
    }
    return 0;
  }

  static ObjectNode toJson(Replay.Result r) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("final", r.finalBoard().toXsb());
    o.put("return", r.ret());
    o.put("solved", r.solved());
    o.put("steps", r.steps());
    if (r.doneAt() == null) o.putNull("done_at");
    else o.put("done_at", r.doneAt());
    return o;
  }

  private void runBatch(BoxobanEnv.Rewards rw, Formats.Format fmt) throws IOException {
    String name = batch.equals("-") ? "standard input" : batch;
    StringBuilder out = new StringBuilder();
    int cases = 0;
    try (BufferedReader in = batch.equals("-")
        ? new BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))
        : openBatch(Path.of(batch))) {
      String line;
      int lineNo = 0;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) continue;
        String where = name + " line " + lineNo;
        JsonNode row;
        try {
          row = MAPPER.readTree(line);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new UserError(where + ": not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (!row.isObject()) throw new UserError(where + ": expected a JSON object with \"level\" and \"actions\"");
        JsonNode lv = row.get("level"), ac = row.get("actions");
        if (lv == null || !lv.isTextual()) throw new UserError(where + ": missing text field \"level\"");
        if (ac == null || !ac.isTextual()) throw new UserError(where + ": missing text field \"actions\"");
        Level l = parseBoard(lv.asText(), fmt, where + ", board");
        Replay.Result r = Replay.run(l, Replay.parseActions(ac.asText(), where), rw);
        out.append(MAPPER.writeValueAsString(toJson(r))).append('\n');
        cases++;
      }
    }
    if (cases == 0) throw new UserError(name + ": no cases");
    PrintStream ps = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    ps.print(out);
    ps.flush();
  }

  private static BufferedReader openBatch(Path p) {
    try {
      return Files.newBufferedReader(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UserError(p + ": cannot read the file (" + e.getMessage() + ")");
    }
  }

  /** A board of a batch case: the given format, else Boxoban when it has a '; N' header, else XSB. */
  static Level parseBoard(String text, Formats.Format fmt, String where) {
    if (fmt != null) return Formats.parse(text, fmt, where);
    return Formats.parse(text, text.strip().startsWith(";") ? Formats.Format.BOXOBAN : Formats.Format.XSB, where);
  }
}
