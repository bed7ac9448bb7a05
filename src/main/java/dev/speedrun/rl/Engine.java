package dev.speedrun.rl;

import dev.speedrun.nn.AdamW;
import dev.speedrun.nn.ConvGruPolicy;
import dev.speedrun.nn.ConvPolicy;
import dev.speedrun.nn.DefaultPolicy;
import dev.speedrun.nn.Muon;
import dev.speedrun.nn.Optimizer;
import dev.speedrun.nn.PolicyNet;
import dev.speedrun.nn.Workers;

/** Builds the recipe's policy and optimizer from the network engine ({@code nn}). */
public final class Engine {
  private Engine() {}

  /** The recipe's policy, initialised deterministically from the run's seed. */
  public static PolicyNet policy(Recipe r, long seed) {
    if (r.policy().equals("conv")) return new ConvPolicy(convConfig(r, seed));
    if (r.policy().equals("convgru")) return new ConvGruPolicy(convGruConfig(r, seed));
    if (!r.policy().equals("default")) throw new dev.speedrun.UserError("recipe: unknown policy '" + r.policy() + "'");
    return new DefaultPolicy(new DefaultPolicy.Config(r.hidden(), r.layers(), dev.speedrun.env.BoxobanEnv.NUM_ACTIONS, seed));
  }

  static ConvPolicy.Config convConfig(Recipe r, long seed) {
    return new ConvPolicy.Config(r.channels(), r.hidden(), r.layers(), dev.speedrun.env.BoxobanEnv.NUM_ACTIONS, seed, r.convs(), r.crop());
  }

  static ConvGruPolicy.Config convGruConfig(Recipe r, long seed) {
    return new ConvGruPolicy.Config(r.channels(), r.channels(), r.hidden(), dev.speedrun.env.BoxobanEnv.NUM_ACTIONS, seed, r.ticks(),
        r.separable(), r.separableInput(), r.pool());
  }

  private static final Workers ONE_THREAD = new Workers(1);

  /**
   * Puts {@code net} and {@code opt} on the pool: the network's passes split over it by rows, or,
   * with {@code r.shards() > 1}, each pass on one thread (the {@link Trainer} runs the shards on the
   * pool instead; give it {@link #shardPool}).
   */
  public static void useWorkers(Recipe r, PolicyNet net, Optimizer opt, Workers pool) {
    Workers forNet = r.shards() > 1 ? ONE_THREAD : pool;
    if (net instanceof DefaultPolicy dp) dp.setWorkers(forNet);
    if (net instanceof ConvPolicy cp) cp.setWorkers(forNet);
    if (opt instanceof Muon mu) mu.setWorkers(pool);
  }

  /** The pool the trainer runs shards on (null without shards). */
  public static Workers shardPool(Recipe r, Workers pool) {
    return r.shards() > 1 ? pool : null;
  }

  /** The recipe's optimizer over {@code net}'s parameters. */
  public static Optimizer optimizer(Recipe r, PolicyNet net) {
    AdamW.Config adam = new AdamW.Config(r.beta1(), r.beta2(), r.adamEps(), r.weightDecay());
    if (r.optimizer().equals("muon")) {
      // Muon on the hidden matrices: the recurrent layers, and for the conv policy also conv2, conv3, ...
      // (each seen as [C][9C]) and the projection; the input layers (gather-embedding, conv1) and the heads get AdamW
      // (Keller Jordan's split: Muon for hidden weights, Adam for the first and last layers); for the convgru
      // policy the ConvGRU's two weights (each [3K][9C] or [3K][9K]) and the head's hidden layer.
      return new Muon(net.params(), new Muon.Config(r.muonMomentum(), true, 5, r.weightDecay(), adam),
          t -> t.name().startsWith("rnn.") || t.name().matches("conv[2-9]\\.weight") || t.name().equals("proj.weight")
              || t.name().startsWith("cgru.weight") || t.name().equals("head.weight"));
    }
    return new AdamW(net.params(), adam);
  }

  /**
   * Multiply-adds of one rollout forward step of the default policy per environment (the layout in
   * {@link DefaultPolicy}'s comment): about 60 active cells x H for the embedding, 3 H^2 per minGRU
   * layer, (A + 1) H for the heads, about 20 H per layer of elementwise work.
   */
  public static double forwardMacs(Recipe r) {
    if (r.policy().equals("conv")) return convConfig(r, 0).forwardMacs() + 20 * r.hidden() * r.layers() + 2000 * r.channels();
    if (r.policy().equals("convgru")) return convGruConfig(r, 0).forwardMacs() + 1000.0 * r.channels() * r.ticks(); // + gates, about 10 per state cell and tick
    double h = r.hidden();
    return 60 * h + 3 * h * h * r.layers() + (dev.speedrun.env.BoxobanEnv.NUM_ACTIONS + 1) * h + 20 * h * r.layers();
  }

  /**
   * FLOPs per environment step of training: the rollout forward (plus the bootstrap step, 1/T more),
   * and per epoch a training forward and a backward (about twice a forward); 2 FLOPs per multiply-add.
   */
  public static double flopsPerStep(Recipe r) {
    double fwd = 2 * forwardMacs(r);
    return fwd * (1 + 1.0 / r.horizon()) + r.epochs() * 3 * fwd;
  }
}
