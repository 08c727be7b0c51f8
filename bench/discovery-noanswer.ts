// No-answer detection as a small classifier (issue 22, direction 2): a logistic regression over a few
// features of the best match, trained on the training folds only, with its threshold chosen on the same
// training folds at a bounded share of answerable queries flagged. Used by bench/discovery-eval.ts.

/** Features of a query's best match (all in roughly [0, 1]). */
export interface NoAnswerFeatures {
  /** Relevance of the first result. */
  relevance: number;
  /** √(relevance × coverage): the shipped `match_strength`. */
  strength: number;
  /** Weighted share of the asked words the first result covers (exactly or by a similar word). */
  coverage: number;
  /** Weight share of the heaviest asked word the first result does not cover. */
  uncovered: number;
  /** Weight share of the asked words no endpoint of the catalogue contains. */
  unknown: number;
  /** (first − second relevance) / first. */
  gap: number;
  /** Cosine of the asked words' mean vector with the first result's. */
  meaning: number;
  /** Credit the first result gives the ask the query starts with (1 when it starts with no ask). */
  lead: number;
  /** Sentence encoder: cosine of the query's vector with the first result's (seventh round only). */
  sentence?: number;
  /** Late interaction: the first result's late score (ranking/late-interaction.ts; tenth round only). */
  late?: number;
  /** 1 when the service would encode the query (its words answer it weakly), else 0 (tenth round). */
  encoded?: number;
  /** Late interaction per query word: the weakest word's best cosine with the first result (eleventh round). */
  lateMin?: number;
  /** The mean of the two weakest words' best cosines (eleventh round). */
  lateLow2?: number;
  /** Share of the query's words whose best cosine with the first result is below 0.5 (eleventh round). */
  lateBelow?: number;
}

export const FEATURE_NAMES: Array<keyof NoAnswerFeatures> = [
  'relevance',
  'strength',
  'coverage',
  'uncovered',
  'unknown',
  'gap',
  'meaning',
];

export interface Example {
  features: NoAnswerFeatures;
  /** True when the query has no right answer in the catalogue. */
  noAnswer: boolean;
}

export interface LogisticModel {
  names: Array<keyof NoAnswerFeatures>;
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * L2-regularised logistic regression (no-answer = 1) on standardised features, classes weighted to equal
 * total weight (a training split holds four no-answer queries against ~44 answerable ones), fitted by
 * full-batch gradient descent (the problem is tiny and convex).
 */
export function fitLogistic(
  train: Example[],
  names: Array<keyof NoAnswerFeatures> = FEATURE_NAMES,
  lambda = 1,
): LogisticModel {
  const d = names.length;
  const raw = train.map((e) => names.map((n) => e.features[n] ?? 0));
  const mean = names.map((_, j) => raw.reduce((s, x) => s + (x[j] as number), 0) / raw.length);
  const scale = names.map((_, j) => {
    const v = raw.reduce((s, x) => s + ((x[j] as number) - (mean[j] as number)) ** 2, 0) / raw.length;
    return Math.sqrt(v) || 1;
  });
  const xs = raw.map((x) => x.map((v, j) => (v - (mean[j] as number)) / (scale[j] as number)));
  const positives = train.filter((e) => e.noAnswer).length;
  const negatives = train.length - positives;
  const sampleWeight = train.map((e) =>
    e.noAnswer ? train.length / (2 * Math.max(positives, 1)) : train.length / (2 * Math.max(negatives, 1)),
  );
  const w = new Array<number>(d).fill(0);
  let b = 0;
  const rate = 0.1;
  for (let step = 0; step < 3000; step++) {
    const gw = w.map((wj) => lambda * wj);
    let gb = 0;
    xs.forEach((x, i) => {
      const z = b + x.reduce((s, v, j) => s + v * (w[j] as number), 0);
      const err = ((sigmoid(z) - (train[i]?.noAnswer ? 1 : 0)) * (sampleWeight[i] as number)) / xs.length;
      for (let j = 0; j < d; j++) gw[j] = (gw[j] as number) + err * (x[j] as number);
      gb += err;
    });
    for (let j = 0; j < d; j++) w[j] = (w[j] as number) - rate * (gw[j] as number);
    b -= rate * gb;
  }
  return { names, mean, scale, weights: w, bias: b };
}

/** Probability-like score that the query has no answer, in (0, 1). */
export function noAnswerScore(model: LogisticModel, f: NoAnswerFeatures): number {
  let z = model.bias;
  model.names.forEach((n, j) => {
    z +=
      (model.weights[j] as number) * (((f[n] ?? 0) - (model.mean[j] as number)) / (model.scale[j] as number));
  });
  return sigmoid(z);
}
