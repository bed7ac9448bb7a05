package dev.speedrun.rl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.speedrun.env.LevelSampler;
import dev.speedrun.sokoban.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Determinism, kill/resume equivalence and learning on easy levels, on short runs. */
class TrainingRunTest {
  static final List<Level> EASY = Fixtures.easyLevels(500, 1);
  static final List<Level> EASY_VAL = Fixtures.easyLevels(100, 2);

  /** A tiny variant of the pinned recipe. */
  static Recipe small(Map<String, String> more) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("numEnvs", "32", "horizon", "16", "minibatchSegments", "16",
        "hidden", "32", "layers", "1", "totalSteps", "4096", "checkpointInterval", "2", "valInterval", "3",
        "valLevels", "20", "warmupIterations", "1"));
    m.putAll(more);
    return Recipe.BASE.with(m);
  }

  static TrainingRun.Setup setup(Recipe r, long seed) {
    LevelSampler train = r.levelSampling().equals("uniform") ? LevelSampler.uniform(EASY, seed)
        : TrainingLevels.sampler(r, EASY_STORE, seed);
    return new TrainingRun.Setup(r, Map.of("test", "1"), seed, 1, train, EASY_VAL.subList(0, 20), "generated easy levels",
        Fixtures.small());
  }

  static final dev.speedrun.sokoban.LevelStore EASY_STORE = dev.speedrun.sokoban.LevelStore.of("easy", "easy.txt",
      EASY.stream().map(l -> padded(l)).toList());

  /** A level padded with walls to 10x10 (a store holds levels of one size). */
  static Level padded(Level l) {
    byte[] cells = new byte[100];
    LevelSampler.pad10(l, cells, 0);
    return new Level(10, 10, cells);
  }

  /** Level replay on the easy levels, with a buffer small enough to fill and replay within the short run. */
  static Recipe plr(Map<String, String> more) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("levelSampling", "plr", "plrBufferSize", "24", "plrMinBuffer", "8",
        "plrTemperature", "0.3"));
    m.putAll(more);
    return small(m);
  }

  @Test
  void sameSeedGivesBitIdenticalCheckpoints(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    TrainingRun.Result c = TrainingRun.start(setup(r, 6), tmp.resolve("c"), Dashboard.silent());
    assertThat(a.finished()).isTrue();
    assertThat(a.iterations()).isEqualTo(8);
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("trainer.bin")))
        .isNotEqualTo(Files.readAllBytes(c.checkpoint().resolve("trainer.bin")));
    assertThat(Files.readString(tmp.resolve("a/summary.json"))).contains("\"train_seconds\"", "\"final_checkpoint\"");
    assertThat(Files.readAllLines(tmp.resolve("a/metrics.jsonl"))).hasSize(9); // 8 iterations + final validation
    assertThat(Files.readString(tmp.resolve("a/log.txt"))).contains("recipe:", "revision:", "machine:", "step: iter 8/8");
  }

  /** Only the newest two checkpoints keep trainer.bin; older ones keep the policy; the one latest names is never pruned. */
  @Test
  void olderCheckpointsKeepThePolicyButNotTheTrainerState(@TempDir Path tmp) throws Exception {
    TrainingRun.start(setup(small(Map.of()), 5), tmp.resolve("a"), Dashboard.silent());
    Path d = tmp.resolve("a/checkpoints");
    for (String it : List.of("it-000002", "it-000004")) {
      assertThat(d.resolve(it + "/policy.safetensors")).exists();
      assertThat(d.resolve(it + "/meta.json")).exists();
      assertThat(d.resolve(it + "/trainer.bin")).doesNotExist();
    }
    for (String it : List.of("it-000006", "it-000008")) assertThat(d.resolve(it + "/trainer.bin")).exists();
    assertThat(Files.readString(d.resolve("latest")).trim()).isEqualTo("it-000008");
    // A newer checkpoint than the one latest names (e.g. copied in): latest still keeps its state.
    Files.createDirectories(d.resolve("it-000099"));
    Files.writeString(d.resolve("it-000099/trainer.bin"), "x");
    assertThat(Checkpoints.pruneStates(tmp.resolve("a"), 1)).isEqualTo(1);
    assertThat(d.resolve("it-000099/trainer.bin")).exists();
    assertThat(d.resolve("it-000008/trainer.bin")).exists();
    assertThat(d.resolve("it-000006/trainer.bin")).doesNotExist();
  }

  /**
   * Early stop on validation: a run stops after the first validation at or above stopValSolveRate,
   * having trained exactly as the full run did up to there; a threshold no validation reaches runs
   * the whole schedule.
   */
  @Test
  void earlyStopEndsAtTheFirstValidationThatReachesTheThreshold(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of("totalSteps", "8192", "valInterval", "2", "hidden", "128"));
    TrainingRun.Result full = TrainingRun.start(straightPushes(r), tmp.resolve("full"), Dashboard.silent());
    List<Map<String, Object>> rows = rows(tmp.resolve("full/metrics.jsonl"));
    Map<String, Object> firstSolve = rows.stream()
        .filter(m -> m.get("val/solve_rate") instanceof Number v && v.doubleValue() > 0 && !m.containsKey("final"))
        .findFirst().orElseThrow(() -> new AssertionError("no in-training validation solved a level: " + rows));
    long stopIteration = ((Number) firstSolve.get("iteration")).longValue();
    double stopVal = ((Number) firstSolve.get("val/solve_rate")).doubleValue();
    assertThat(stopIteration).isLessThan(full.iterations());

    Recipe early = r.with(Map.of("stopValSolveRate", Float.toString((float) stopVal - 1e-6f)));
    TrainingRun.Result stopped = TrainingRun.start(straightPushes(early), tmp.resolve("early"), Dashboard.silent());
    assertThat(stopped.finished()).isTrue();
    assertThat(stopped.iterations()).isEqualTo(stopIteration);
    assertThat(stopped.valSolveRate()).isEqualTo(stopVal);
    List<Map<String, Object>> earlyRows = rows(tmp.resolve("early/metrics.jsonl"));
    for (int k = 0; k < stopIteration; k++) {
      assertThat(earlyRows.get(k).get("losses/policy_loss")).isEqualTo(rows.get(k).get("losses/policy_loss"));
    }
    assertThat(Files.readString(tmp.resolve("early/summary.json"))).contains("\"stopped_early\" : true");
    assertThat(Files.readString(tmp.resolve("early/log.txt"))).contains("early stop: validation solve rate");
    assertThat(Files.readString(tmp.resolve("full/summary.json"))).contains("\"stopped_early\" : false");

    Recipe never = r.with(Map.of("stopValSolveRate", "1"));
    double best = rows.stream().filter(m -> m.get("val/solve_rate") instanceof Number).mapToDouble(m -> ((Number) m.get("val/solve_rate")).doubleValue()).max().orElse(0);
    if (best < 1) {
      TrainingRun.Result all = TrainingRun.start(straightPushes(never), tmp.resolve("never"), Dashboard.silent());
      assertThat(all.iterations()).isEqualTo(full.iterations());
    }
  }

  /**
   * A run kept (latest checkpoint, gzipped log and metrics), restored elsewhere and resumed ends bit
   * for bit as the uninterrupted run; keeping again replaces the kept copy; restore never overwrites.
   */
  @Test
  void keptRunRestoresAndResumesBitIdentical(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 3); // checkpoint at 2 only
    Path kept = tmp.resolve("kept/cut");
    KeptRun.keep(tmp.resolve("cut"), kept);
    TrainingRun.start(setup(r, 9), tmp.resolve("cut2"), Dashboard.silent(), 5); // checkpoints 2 and 4
    KeptRun.keep(tmp.resolve("cut2"), kept);
    try (var s = Files.list(kept.resolve("checkpoints"))) {
      assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("it-000004", "latest");
    }
    assertThat(kept.resolve("metrics.jsonl.gz")).exists();
    assertThat(kept.resolve("metrics.jsonl")).doesNotExist();
    assertThat(tmp.resolve("kept").toFile().list()).containsExactly("cut");

    Path back = tmp.resolve("elsewhere/run");
    KeptRun.restore(kept, back);
    assertThat(Files.readAllLines(back.resolve("metrics.jsonl"))).isEqualTo(Files.readAllLines(tmp.resolve("cut2/metrics.jsonl")));
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), back, Dashboard.silent());
    assertThat(resumed.finished()).isTrue();
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());

    byte[] before = Files.readAllBytes(back.resolve("metrics.jsonl"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeptRun.restore(kept, back)).isInstanceOf(dev.speedrun.UserError.class)
        .hasMessageContaining("exists already");
    assertThat(Files.readAllBytes(back.resolve("metrics.jsonl"))).isEqualTo(before);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeptRun.keep(tmp.resolve("kept"), tmp.resolve("k2")))
        .isInstanceOf(dev.speedrun.UserError.class).hasMessageContaining("not a run directory");
  }

  /**
   * Kept portable, the resume state travels gzipped (trainer.bin.gz, no trainer.bin, so git's ignore
   * of trainer.bin does not drop it); resuming the kept folder in place is refused with a sentence
   * naming the restore; restored, it resumes bit for bit as the uninterrupted run.
   */
  @Test
  void portableKeptRunPacksResumeStateAndResumesBitIdentical(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 3); // checkpoint at 2 only
    Path kept = tmp.resolve("kept/cut");
    KeptRun.keep(tmp.resolve("cut"), kept, true);
    Path ck = Checkpoints.latest(kept);
    assertThat(ck.resolve("trainer.bin")).doesNotExist();
    assertThat(ck.resolve("trainer.bin.gz")).exists();
    assertThat(Files.size(ck.resolve("trainer.bin.gz"))).isLessThan(Files.size(Checkpoints.latest(tmp.resolve("cut")).resolve("trainer.bin")));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TrainingRun.resume(setup(r, 9), kept, Dashboard.silent()))
        .isInstanceOf(dev.speedrun.UserError.class).hasMessageContaining("keep --restore");
    assertThat(kept.resolve("log.txt")).doesNotExist(); // refused before anything was written there

    Path back = tmp.resolve("elsewhere/run");
    KeptRun.restore(kept, back);
    assertThat(Checkpoints.latest(back).resolve("trainer.bin.gz")).doesNotExist();
    assertThat(Files.readAllBytes(Checkpoints.latest(back).resolve("trainer.bin")))
        .isEqualTo(Files.readAllBytes(Checkpoints.latest(tmp.resolve("cut")).resolve("trainer.bin")));
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), back, Dashboard.silent());
    assertThat(resumed.finished()).isTrue();
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());
  }

  /** Seed 5, validated on levels one straight push run solves (so that some greedy validation solves one early). */
  private static TrainingRun.Setup straightPushes(Recipe r) {
    TrainingRun.Setup s = setup(r, 5);
    return new TrainingRun.Setup(r, s.overrides(), 5, 1, s.train(), Fixtures.easyLevels(40, 2, 5, true), s.levelSource(), s.factory());
  }

  @Test
  void killedAndResumedRunEndsBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, small(Map.of()));
  }

  /** The conv-recurrent policy (its state a feature map), two ticks a step, trains with Muon and resumes bit for bit. */
  @Test
  void convGruRunResumesBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, small(Map.of("policy", "convgru", "channels", "4", "hidden", "16", "optimizer", "muon", "ticks", "2")));
  }

  /** Muon's momentum and Adam moments for the vectors travel through the checkpoint too. */
  @Test
  void muonRunResumesBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, small(Map.of("optimizer", "muon")));
  }

  /** Prioritized segment sampling: deterministic, resumable bit for bit, and not the shuffle's result. */
  @Test
  void prioritizedSegmentRunIsDeterministicResumableAndDiffers(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of("segmentSampling", "prio"));
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result plain = TrainingRun.start(setup(small(Map.of()), 5), tmp.resolve("b"), Dashboard.silent());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("policy.safetensors")))
        .isNotEqualTo(Files.readAllBytes(plain.checkpoint().resolve("policy.safetensors")));
    killAndResume(tmp.resolve("k"), r);
  }

  /**
   * Data-parallel shards: the same bits on one thread and on two, resumable, and with a zero learning
   * rate the very rollouts and losses of the unsharded policy (the split is by whole rows).
   */
  @Test
  void shardedRunIsIndependentOfThreadsAndResumes(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of("shards", "2"));
    TrainingRun.Result one = TrainingRun.start(setup(r, 5), tmp.resolve("one"), Dashboard.silent());
    TrainingRun.Setup s1 = setup(r, 5);
    TrainingRun.Setup two = new TrainingRun.Setup(r, s1.overrides(), 5, 2, s1.train(), s1.validation(), s1.levelSource(), s1.factory());
    TrainingRun.Result both = TrainingRun.start(two, tmp.resolve("two"), Dashboard.silent());
    assertSameCheckpoint(one.checkpoint(), both.checkpoint());
    TrainingRun.Result plain = TrainingRun.start(setup(small(Map.of()), 5), tmp.resolve("plain"), Dashboard.silent());
    assertThat(Files.readAllBytes(one.checkpoint().resolve("policy.safetensors")))
        .as("the gradient is summed per shard").isNotEqualTo(Files.readAllBytes(plain.checkpoint().resolve("policy.safetensors")));
    killAndResume(tmp.resolve("k"), r);
  }

  /**
   * entropyCoefEnd: equal to entropyCoef it gives the same bits as no schedule; different, the first
   * update is the same (the schedule starts at entropyCoef) and the second is not.
   */
  @Test
  void entropyScheduleStartsAtTheCoefficientAndChangesTheLaterUpdates() {
    Recipe constant = small(Map.of());
    Recipe same = small(Map.of("entropyCoefEnd", Float.toString(constant.entropyCoef())));
    Recipe other = small(Map.of("entropyCoefEnd", "0.5"));
    float[][] after1 = new float[3][], after2 = new float[3][];
    Recipe[] rs = {constant, same, other};
    for (int i = 0; i < 3; i++) {
      dev.speedrun.nn.PolicyNet net = Engine.policy(rs[i], 3);
      Trainer tr = new Trainer(rs[i], 3, net, Engine.optimizer(rs[i], net), LevelSampler.uniform(EASY, 3));
      tr.iterate();
      after1[i] = net.params().data.clone();
      tr.iterate();
      after2[i] = net.params().data.clone();
    }
    assertThat(after1[1]).isEqualTo(after1[0]);
    assertThat(after1[2]).isEqualTo(after1[0]);
    assertThat(after2[1]).isEqualTo(after2[0]);
    assertThat(after2[2]).isNotEqualTo(after2[0]);
  }

  @Test
  void shardsWithZeroLearningRateReproduceTheUnshardedRun() {
    for (String policy : List.of("default", "conv", "convgru")) {
      Map<String, String> m = Map.of("learningRate", "0", "policy", policy, "channels", "4");
      Recipe plain = small(m), sharded = small(new java.util.HashMap<>(m) {{ put("shards", "4"); }});
      dev.speedrun.nn.PolicyNet a = Engine.policy(plain, 3), b = Engine.policy(sharded, 3);
      try (dev.speedrun.nn.Workers pool = new dev.speedrun.nn.Workers(2)) {
        Trainer ta = new Trainer(plain, 3, a, Engine.optimizer(plain, a), LevelSampler.uniform(EASY, 3));
        Trainer tb = new Trainer(sharded, 3, b, null, Engine.optimizer(sharded, b), LevelSampler.uniform(EASY, 3), pool,
            () -> Engine.policy(sharded, 3));
        for (int i = 0; i < 3; i++) {
          Trainer.Metrics x = ta.iterate(), y = tb.iterate();
          assertThat(y.episodes()).isEqualTo(x.episodes()).isPositive();
          assertThat(y.solveRate()).isEqualTo(x.solveRate());
          assertThat(y.episodicReturn()).isEqualTo(x.episodicReturn());
          assertThat(y.entropy()).isEqualTo(x.entropy());
          assertThat(y.policyLoss()).isEqualTo(x.policyLoss());
          assertThat(y.valueLoss()).isEqualTo(x.valueLoss());
        }
      }
    }
  }

  /** Overlap mode: the checkpoint also carries the collected batch that has not been trained on. */
  @Test
  void overlappedRunIsDeterministicAndResumable(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of("overlap", "true"));
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    TrainingRun.Result plain = TrainingRun.start(setup(small(Map.of()), 5), tmp.resolve("c"), Dashboard.silent());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("policy.safetensors")))
        .as("one update of lag changes the result").isNotEqualTo(Files.readAllBytes(plain.checkpoint().resolve("policy.safetensors")));
    killAndResume(tmp.resolve("k"), r);
  }

  @Test
  void levelReplayRunIsDeterministicReplaysAndDiffersFromUniform(@TempDir Path tmp) throws Exception {
    Recipe r = plr(Map.of());
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    assertThat(plrFigures(tmp.resolve("a/metrics.jsonl"))).isEqualTo(plrFigures(tmp.resolve("b/metrics.jsonl")));
    // Replays happened and were logged: some iteration replayed, the buffer filled.
    List<Map<String, Object>> rows = rows(tmp.resolve("a/metrics.jsonl"));
    double maxReplay = rows.stream().filter(m -> m.get("plr/replay_fraction") != null)
        .mapToDouble(m -> ((Number) m.get("plr/replay_fraction")).doubleValue()).max().orElse(0);
    assertThat(maxReplay).isGreaterThan(0);
    assertThat(rows.get(7).get("plr/buffer_size")).isEqualTo(24);
    assertThat(rows.get(7)).containsKeys("plr/mean_score", "plr/replay_solve_rate", "plr/new_solve_rate", "charts/target_rate");
    assertThat(Files.readString(tmp.resolve("a/log.txt"))).contains(" plr buf 24 replay ");
    // The same levels with uniform sampling train another policy.
    TrainingRun.Result u = TrainingRun.start(setup(TrainingRunTest.small(Map.of()), 5), tmp.resolve("u"), Dashboard.silent());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("policy.safetensors")))
        .isNotEqualTo(Files.readAllBytes(u.checkpoint().resolve("policy.safetensors")));
  }

  /** Without replays, level replay plays the uniform stream: the same policy as the uniform sampler over the same store. */
  @Test
  void levelReplayWithoutReplaysTrainsLikeUniform(@TempDir Path tmp) throws Exception {
    Recipe u = small(Map.of());
    Recipe p = plr(Map.of("plrReplayProb", "0"));
    var su = new TrainingRun.Setup(u, Map.of(), 5, 1, TrainingLevels.sampler(u, EASY_STORE, 5), EASY_VAL.subList(0, 20), "easy",
        Fixtures.small());
    TrainingRun.Result a = TrainingRun.start(su, tmp.resolve("u"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(p, 5), tmp.resolve("p"), Dashboard.silent());
    assertThat(Files.readAllBytes(a.checkpoint().resolve("policy.safetensors")))
        .isEqualTo(Files.readAllBytes(b.checkpoint().resolve("policy.safetensors")));
  }

  @Test
  void levelReplayRunResumesBitIdentical(@TempDir Path tmp) throws Exception {
    killAndResume(tmp, plr(Map.of()));
  }

  /** With overlap, the pending batch's level record travels through the checkpoint too. */
  @Test
  void overlappedLevelReplayRunResumesBitIdentical(@TempDir Path tmp) throws Exception {
    Recipe r = plr(Map.of("overlap", "true"));
    TrainingRun.Result a = TrainingRun.start(setup(r, 5), tmp.resolve("a"), Dashboard.silent());
    TrainingRun.Result b = TrainingRun.start(setup(r, 5), tmp.resolve("b"), Dashboard.silent());
    assertSameCheckpoint(a.checkpoint(), b.checkpoint());
    killAndResume(tmp.resolve("k"), r);
  }

  /**
   * A checkpoint written before the level-sampling fields existed (its recipe text lacks them)
   * still resumes a uniform run, bit-identical to the uninterrupted run.
   */
  @Test
  void checkpointFromBeforeLevelSamplingFieldsStillResumes(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5);
    Path bin = tmp.resolve("cut/checkpoints/it-000004/trainer.bin");
    String now = r.toString();
    String old = now.substring(0, now.indexOf(", levelSampling=")) + "]";
    rewriteRecipe(bin, now, old);
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), tmp.resolve("cut"), Dashboard.silent());
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());
    // A plr recipe does not accept such a checkpoint.
    assertThat(plr(Map.of()).matchesStored(old)).isFalse();
  }

  /** Replaces the recipe text in a trainer.bin (magic, version, seed, UTF recipe, ...) and fixes its checksum. */
  private static void rewriteRecipe(Path bin, String from, String to) throws Exception {
    byte[] all = Files.readAllBytes(bin);
    var in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(all, 0, all.length - 8));
    int magic = in.readInt(), version = in.readInt();
    long seed = in.readLong();
    assertThat(in.readUTF()).isEqualTo(from);
    byte[] rest = in.readAllBytes();
    var bytes = new java.io.ByteArrayOutputStream();
    try (var out = new java.io.DataOutputStream(bytes)) {
      out.writeInt(magic);
      out.writeInt(version);
      out.writeLong(seed);
      out.writeUTF(to);
      out.write(rest);
    }
    byte[] body = bytes.toByteArray();
    var crc = new java.util.zip.CRC32();
    crc.update(body);
    byte[] fixed = java.util.Arrays.copyOf(body, body.length + 8);
    java.nio.ByteBuffer.wrap(fixed, body.length, 8).putLong(crc.getValue());
    Files.write(bin, fixed);
  }

  /** The level-replay figures of every metrics row (the rows also hold timings, which differ). */
  private static List<Map<String, Object>> plrFigures(Path metrics) throws Exception {
    return rows(metrics).stream().map(m -> {
      Map<String, Object> f = new java.util.TreeMap<>();
      m.forEach((k, v) -> {
        if (k.startsWith("plr/") || k.equals("charts/target_rate")) f.put(k, v);
      });
      return (Map<String, Object>) f;
    }).toList();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rows(Path metrics) throws Exception {
    List<Map<String, Object>> out = new java.util.ArrayList<>();
    for (String l : Files.readAllLines(metrics)) out.add(TrainingRun.JSON.readValue(l, Map.class));
    return out;
  }

  /**
   * A graceful stop (Ctrl-C, SIGTERM) between checkpoint intervals writes a checkpoint at that very
   * iteration, says so on the dashboard as its last line, and the run resumes from it bit for bit.
   */
  @Test
  void interruptedRunCheckpointsThereSaysSoAndResumesBitIdentical(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    Dashboard plain = new Dashboard(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8), false);
    Path cut = tmp.resolve("cut");
    TrainingRun.Result stopped = TrainingRun.start(setup(r, 9), cut, plain, -1, 3); // checkpoint interval 2
    assertThat(stopped.interrupted()).isTrue();
    assertThat(stopped.finished()).isFalse();
    assertThat(stopped.iterations()).isEqualTo(3);
    assertThat(stopped.checkpoint()).isEqualTo(cut.resolve("checkpoints/it-000003"));
    List<String> lines = out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(4); // three step lines, then the message
    assertThat(lines.get(3)).isEqualTo("interrupted: checkpoint " + stopped.checkpoint()
        + "; continue with ./speedrun train --resume " + cut);
    assertThat(Files.readString(cut.resolve("log.txt"))).contains("interrupted: checkpoint checkpoints/it-000003 written at iteration 3");
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), cut, Dashboard.silent());
    assertThat(resumed.finished()).isTrue();
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());
    assertThat(Files.readString(cut.resolve("log.txt"))).contains("resume: from checkpoints/it-000003");
  }

  /**
   * Checkpoints record the vector width and machine. A checkpoint written at another width than this
   * machine's is refused on resume (one sentence, nothing written to the run), and resumed with
   * --allow-vector-change the log says where the width changed; each resume logs its machine.
   */
  @Test
  void resumeRefusesAnotherVectorWidthUnlessAllowedAndLogsEachSegmentsMachine(@TempDir Path tmp) throws Exception {
    Recipe r = small(Map.of());
    Path cut = tmp.resolve("cut");
    TrainingRun.Result stopped = TrainingRun.start(setup(r, 9), cut, Dashboard.silent(), -1, 3);
    Path meta = stopped.checkpoint().resolve("meta.json");
    Map<String, Object> m = TrainingRun.JSON.readValue(meta.toFile(), Map.class);
    assertThat(m.get("vector_bits")).isEqualTo(RunInfo.vectorBits());
    assertThat((String) m.get("machine")).isEqualTo(RunInfo.machine()).contains(RunInfo.vectorBits() + "-bit vectors");

    int other = RunInfo.vectorBits() == 512 ? 256 : 512;
    m.put("vector_bits", other);
    Files.write(meta, TrainingRun.JSON.writeValueAsBytes(m));
    String logBefore = Files.readString(cut.resolve("log.txt"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TrainingRun.resume(setup(r, 9), cut, Dashboard.silent()))
        .isInstanceOf(dev.speedrun.UserError.class)
        .hasMessage("cannot resume " + cut + " bit for bit here: its checkpoint it-000003 was written with " + other
            + "-bit vectors and this machine has " + RunInfo.vectorBits() + "-bit vectors, which sum in other orders; resume it on a "
            + "machine with " + other + "-bit vectors, or pass --allow-vector-change to go on here (the run is then no longer "
            + "determined by its seed alone)");
    assertThat(Files.readString(cut.resolve("log.txt"))).isEqualTo(logBefore);

    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), cut, Dashboard.silent(), true);
    assertThat(resumed.finished()).isTrue();
    String log = Files.readString(cut.resolve("log.txt"));
    assertThat(log).contains("vector width: " + other + " -> " + RunInfo.vectorBits() + " bits from it-000003 on (--allow-vector-change)",
        "resume: from checkpoints/it-000003", "; machine: " + RunInfo.machine() + "; jdk: ");
    // Checkpoints from before widths were recorded resume as before.
    m.remove("vector_bits");
    Files.write(meta, TrainingRun.JSON.writeValueAsBytes(m));
    assertThat(TrainingRun.vectorWidthNote(stopped.checkpoint(), RunInfo.vectorBits(), false)).isNull();
    assertThat(TrainingRun.vectorWidthNote(stopped.checkpoint(), other, false)).isNull();
  }

  private static void killAndResume(Path tmp, Recipe r) throws Exception {
    TrainingRun.Result whole = TrainingRun.start(setup(r, 9), tmp.resolve("whole"), Dashboard.silent());
    // Dies after 5 iterations (last checkpoint at 4), leaving a half-written checkpoint behind.
    TrainingRun.Result killed = TrainingRun.start(setup(r, 9), tmp.resolve("cut"), Dashboard.silent(), 5);
    assertThat(killed.finished()).isFalse();
    Files.createDirectories(tmp.resolve("cut/checkpoints/.tmp-it-000006"));
    Files.writeString(tmp.resolve("cut/metrics.jsonl"), "{\"iteration\": 6, \"glob", java.nio.file.StandardOpenOption.APPEND);
    TrainingRun.Result resumed = TrainingRun.resume(setup(r, 9), tmp.resolve("cut"), Dashboard.silent());
    assertThat(resumed.finished()).isTrue();
    assertSameCheckpoint(whole.checkpoint(), resumed.checkpoint());
    assertThat(Files.exists(tmp.resolve("cut/checkpoints/.tmp-it-000006"))).isFalse();
    List<String> metrics = Files.readAllLines(tmp.resolve("cut/metrics.jsonl"));
    assertThat(metrics).hasSize(9);
    assertThat(Files.readString(tmp.resolve("cut/log.txt"))).contains("resume: from checkpoints/it-000004");
  }

  private static void assertSameCheckpoint(Path x, Path y) throws Exception {
    assertThat(Files.readAllBytes(x.resolve("trainer.bin"))).isEqualTo(Files.readAllBytes(y.resolve("trainer.bin")));
    assertThat(Files.readAllBytes(x.resolve("policy.safetensors"))).isEqualTo(Files.readAllBytes(y.resolve("policy.safetensors")));
  }
}
