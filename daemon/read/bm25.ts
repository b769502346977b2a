// BM25 passage ranking for browser_read's `query`: keeps the passages of a
// page that best match a query, with no model and no index to build ahead.
//
// Okapi BM25 with Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)), which
// stays positive when a term is in most passages (a short page of 3 passages
// would otherwise score its topic words below zero). A passage's heading path
// is indexed with it, so "Ratios > French press" matches a query about ratios
// even in the section's later passages; link and image URLs are not indexed,
// they are noise (every table row's "https", "example", "com").
import { type Passage, type SplitOptions, splitPassages } from './passages.js';
import { tokenize } from './tokenize.js';

export { type Passage, type SplitOptions, splitPassages } from './passages.js';

export interface RankOptions {
  /** How many passages to keep (default 5). */
  topK?: number;
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Length normalisation (default 0.75). */
  b?: number;
}

export interface ScoredPassage {
  passage: Passage;
  score: number;
}

/** The top passages by BM25 score, best first; equal scores keep document order. Only matching passages. */
export function rankPassages(passages: Passage[], query: string, opts: RankOptions = {}): ScoredPassage[] {
  const topK = opts.topK ?? 5;
  const k1 = opts.k1 ?? 1.2;
  const b = opts.b ?? 0.75;
  const terms = [...new Set(tokenize(query))];
  if (!terms.length || !passages.length || topK <= 0) return [];

  const docs = passages.map((p) => termCounts(indexText(p)));
  const avgLen = docs.reduce((n, d) => n + d.len, 0) / docs.length || 1;
  const n = docs.length;
  const idf = new Map<string, number>();
  for (const t of terms) {
    const df = docs.reduce((c, d) => c + (d.tf.has(t) ? 1 : 0), 0);
    idf.set(t, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }

  const scored: (ScoredPassage & { i: number })[] = [];
  docs.forEach((d, i) => {
    let score = 0;
    for (const t of terms) {
      const tf = d.tf.get(t);
      if (!tf) continue;
      score += idf.get(t)! * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.len) / avgLen)));
    }
    if (score > 0) scored.push({ passage: passages[i], score, i });
  });
  scored.sort((x, y) => y.score - x.score || x.i - y.i);
  return scored.slice(0, topK).map(({ passage, score }) => ({ passage, score }));
}

/** The best `topK` passages of a Markdown text for a query, returned in document order with their scores. */
export function bestPassages(
  markdown: string,
  query: string,
  topK = 5,
  opts: SplitOptions & Omit<RankOptions, 'topK'> = {},
): ScoredPassage[] {
  const ranked = rankPassages(splitPassages(markdown, opts), query, { ...opts, topK });
  return ranked.sort((x, y) => x.passage.start - y.passage.start);
}

function indexText(p: Passage): string {
  const body = p.text.replace(/\]\([^)\s]*\)/g, ']'); // drop link/image destinations
  return p.headingPath.join(' ') + '\n' + body;
}

function termCounts(text: string): { tf: Map<string, number>; len: number } {
  const tf = new Map<string, number>();
  const tokens = tokenize(text);
  for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { tf, len: tokens.length };
}
