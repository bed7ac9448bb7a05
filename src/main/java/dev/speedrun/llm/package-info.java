/**
 * The LLM track: everything around RL fine-tuning of a chat model on small text Sokoban puzzles.
 *
 * <ul>
 *   <li>{@link dev.speedrun.llm.LlmBoard}: the reasoning-gym board legend ({@code + - X @ $ * %});
 *       {@link dev.speedrun.llm.Datasets} and {@link dev.speedrun.llm.Puzzle}: the JSONL rows.
 *   <li>{@link dev.speedrun.llm.Reward}: the binary reward (answer extraction, U/D/L/R replay).
 *   <li>{@link dev.speedrun.llm.PuzzleGenerator} and {@link dev.speedrun.llm.TinySolver}: train and
 *       eval sets with move-optimal gold answers.
 *   <li>{@link dev.speedrun.llm.Prompt}: the chat template.
 *   <li>{@link dev.speedrun.llm.ChatClient} and {@link dev.speedrun.llm.LlmEval}: the evaluation
 *       protocol against OpenAI-compatible servers; {@link dev.speedrun.llm.AgentEval}: our agents
 *       on the same puzzles; {@link dev.speedrun.llm.PassStats}: pass@1, pass@k and the interval
 *       (through {@code eval.Intervals}).
 *   <li>{@link dev.speedrun.llm.RewardService} and {@link dev.speedrun.llm.Episode}: the reward and
 *       multi-turn episodes over HTTP.
 * </ul>
 */
package dev.speedrun.llm;
