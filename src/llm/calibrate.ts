import { cosine } from '../domain/vector';
import type { EmbeddingProvider } from './ports';

/**
 * The cosine similarity that unrelated texts reach with an embedding model: models differ widely (hashing
 * embeddings score unrelated texts near 0, e5 between 0.7 and 0.8), so one fixed cut-off cannot serve them all.
 * Measured once per model on questions and passages of unrelated topics: the mean score of a question against a
 * passage on another topic plus one standard deviation (the highest such score is too strict for a weak model,
 * whose related and unrelated scores overlap). Each text is embedded in the model's query or document convention.
 */

const QUESTIONS = [
  'How long should bread dough rise before baking?',
  'Which planet in the solar system has the most moons?',
  'What does a stock exchange do when trading is halted?',
  'How do you replace a flat bicycle tyre?',
];

const PASSAGES = [
  'Knead the dough for ten minutes, then leave it covered in a warm place until it doubles in size.',
  'Saturn has more confirmed moons than any other planet, many of them small and irregular.',
  'A trading halt stops all buying and selling of a share while the exchange waits for news to spread.',
  'Lever the tyre off the rim, patch or replace the inner tube, then refit the tyre and pump it up.',
];

export async function unrelatedSimilarity(embedder: EmbeddingProvider, signal?: AbortSignal): Promise<number> {
  const [questions, passages] = await Promise.all([
    embedder.embedQueries ? embedder.embedQueries(QUESTIONS, signal) : embedder.embed(QUESTIONS, signal),
    embedder.embed(PASSAGES, signal),
  ]);
  const scores = questions.flatMap((q, i) => passages.filter((_, j) => j !== i).map((p) => cosine(q, p)));
  const mean = scores.reduce((sum, s) => sum + s, 0) / scores.length;
  const spread = Math.sqrt(scores.reduce((sum, s) => sum + (s - mean) ** 2, 0) / scores.length);
  return mean + spread;
}
