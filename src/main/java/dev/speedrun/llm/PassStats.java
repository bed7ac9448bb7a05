package dev.speedrun.llm;

import dev.speedrun.eval.Intervals;

/**
 * The LLM track's headline figures from per-puzzle counts: k samples per puzzle, of which
 * {@code solved[i]} scored 1 and {@code answered[i]} had an answer.
 *
 * <ul>
 *   <li>pass@1: mean over puzzles of solved/k (the benchmark's score);
 *   <li>pass@k: fraction of puzzles with at least one solved sample;
 *   <li>answer rate: fraction of all samples with an extractable answer;
 *   <li>interval of pass@1: percentile bootstrap over puzzles ({@link Intervals#bootstrap}); when
 *       k = 1 the Wilson interval of solved puzzles ({@link Intervals#wilson}). Both come from the
 *       one implementation in {@code eval.Intervals}.
 * </ul>
 */
public record PassStats(int puzzles, int k, double pass1, double passK, double answerRate,
    String interval, double lo, double hi) {

  public static PassStats of(int[] solved, int[] answered, int k) {
    int n = solved.length;
    if (n == 0 || k < 1) throw new IllegalArgumentException("need puzzles and k >= 1");
    double[] per = new double[n];
    long solvedTotal = 0, answeredTotal = 0, anySolved = 0;
    for (int i = 0; i < n; i++) {
      per[i] = (double) solved[i] / k;
      solvedTotal += solved[i];
      answeredTotal += answered[i];
      if (solved[i] > 0) anySolved++;
    }
    Intervals.Interval ci;
    String kind;
    if (k == 1) {
      ci = Intervals.wilson(solvedTotal, n);
      kind = "wilson";
    } else {
      ci = Intervals.bootstrap(per);
      kind = "bootstrap";
    }
    return new PassStats(n, k, Intervals.mean(per), (double) anySolved / n,
        (double) answeredTotal / ((long) n * k), kind, ci.lo(), ci.hi());
  }
}
