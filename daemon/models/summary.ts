/**
 * browser_read's model steps: a page summary (plain, or following the caller's instruction) and a model's
 * re-ordering of the BM25 passages for a query. Page text reaches the model only fenced; what comes back is
 * the model's words about page text, so callers show it fenced too.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { chunkPages, fenceChunks, FENCE_RULE, pickChunks, type Chunk, type PageText } from './chunks.js';
import { answerArgs } from './extract.js';
import type { ModelSession } from './session.js';
import type { ToolSpec } from './types.js';

/** Page characters a summary is written from: the page's beginning, or the passages that match the instruction. */
export const SUMMARY_CHARS = 16000;
const SUMMARY_TOKENS = 800;

const SUMMARY_SYSTEM = [
  'You summarise web page text for someone who has not read it.',
  'Write a short summary (at most about 150 words) of what the page says: its main points and any key facts, names, numbers and dates. Follow the caller\'s instruction when there is one. Use only what the page says.',
  FENCE_RULE,
].join('\n');

export async function summarisePage(session: ModelSession, page: PageText, instruction?: string): Promise<string> {
  const all = chunkPages([page]);
  if (!all.length) throw new BrowserdError('action_failed', 'the page has no readable text to summarise', { next: 'Check the page shows its content, or pass includeHidden when the text is there but hidden.' });
  const picked = pickChunks(all, instruction ?? '', SUMMARY_CHARS);
  const content = [instruction ? `Instruction from the caller: ${instruction}` : 'Summarise this page.', `Page text (${picked.length} of ${all.length} chunks):`, fenceChunks(picked)].join('\n\n');
  const r = await session.turn({ system: SUMMARY_SYSTEM, messages: [{ role: 'user', content }], maxOutputTokens: SUMMARY_TOKENS });
  const text = r.text.trim();
  if (!text) throw new BrowserdError('action_failed', `the model (${session.model.id}) answered no summary`, { next: 'Try again, or another model.' });
  return text;
}

export interface RankablePassage {
  text: string;
  headingPath: string[];
  start: number;
  end: number;
}

const RANK_TOOL = 'rank';
const RANK_SPEC: ToolSpec = {
  name: RANK_TOOL,
  description: 'The passage ids, most relevant to the query first.',
  parameters: {
    type: 'object',
    properties: { order: { type: 'array', items: { type: 'string' }, description: 'Passage ids such as "c3", best first; leave out passages that do not help answer the query.' } },
    required: ['order'],
  },
};
const RANK_SYSTEM = [
  'You rank passages of a web page by how well they answer a query.',
  `Answer only by calling ${RANK_TOOL} with the passage ids, most relevant first; leave out passages that do not help.`,
  FENCE_RULE,
].join('\n');

/**
 * The passages in the model's order, cut at topK. Ids the model made up are ignored; passages it left out
 * follow in their BM25 order only when it named fewer than topK (it judged them, but a short list is still a
 * list of the page's best). A malformed answer keeps the BM25 order and says so in `warning`.
 */
export async function rerankPassages<P extends RankablePassage>(session: ModelSession, url: string, query: string, passages: P[], topK: number): Promise<{ passages: P[]; warning?: string }> {
  if (passages.length <= 1) return { passages: passages.slice(0, topK) };
  const chunks: Chunk[] = passages.map((p, i) => ({ id: `c${i + 1}`, url, text: p.text, headingPath: p.headingPath, start: p.start, end: p.end }));
  const content = [`Query: ${query}`, `Passages (${chunks.length}):`, fenceChunks(chunks)].join('\n\n');
  const r = await session.turn({ system: RANK_SYSTEM, messages: [{ role: 'user', content }], tools: [RANK_SPEC], toolChoice: { name: RANK_TOOL }, maxOutputTokens: 400 });
  const order = answerArgs(r, RANK_TOOL).args?.order;
  if (!Array.isArray(order)) return { passages: passages.slice(0, topK), warning: `the model's ranking was malformed; the passages are in BM25 order` };
  const seen = new Set<number>();
  for (const id of order) {
    const m = typeof id === 'string' ? /^c(\d+)$/.exec(id.trim()) : null;
    const i = m ? Number(m[1]) - 1 : -1;
    if (i >= 0 && i < passages.length) seen.add(i);
  }
  const ranked = [...seen].map((i) => passages[i]);
  const rest = passages.filter((_, i) => !seen.has(i));
  return { passages: [...ranked, ...rest].slice(0, topK) };
}
