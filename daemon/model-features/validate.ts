/**
 * Validate: does the tab's page show that an assertion holds? The model reads the page text (browser_read's
 * pipeline, hidden text out unless includeHidden; the passages that best match the assertion, fenced) and
 * answers pass or fail with a quote. The quote is checked against the page: a pass whose quote is not on the
 * page is not a pass (the model may have made it up), and says so in the warnings.
 */
import type { ToolContext } from '../call/context.js';
import { readPagesForModel } from '../reading/model-pages.js';
import { chunkPages, fenceChunks, FENCE_RULE, pickChunks } from '../models/chunks.js';
import { checkCitations, type Citation } from '../models/citations.js';
import { forcedAnswer } from './forced-answer.js';
import { openModelSession } from '../models/session.js';
import { hideSecrets } from '../reading/model-pages.js';
import type { ToolSpec } from '../models/types.js';

export const ASSERTION_MAX = 2000;
/** Page text sent: enough for the passages that bear on one assertion. */
const CONTEXT_CHARS = 24_000;

const JUDGE: ToolSpec = {
  name: 'judge_assertion',
  description: 'Whether the page shows that the assertion holds, with the passage that shows it.',
  parameters: {
    type: 'object',
    properties: {
      pass: { type: 'boolean', description: 'true when the page text shows the assertion holds.' },
      chunk: { type: 'string', description: 'The id of the chunk the quote is from, such as c3.' },
      quote: { type: 'string', description: 'A short passage copied word for word from the page that shows it (or that shows it does not hold); empty when there is none.' },
      reason: { type: 'string', description: 'One sentence: why it passes or fails.' },
    },
    required: ['pass', 'quote', 'reason'],
  },
};

const SYSTEM = [
  'You check an assertion about a web page against the page text given, and nothing else.',
  'Pass only when the text shows it; back the verdict with a quote copied word for word from one chunk, with that chunk id.',
  FENCE_RULE,
].join(' ');

export interface ValidateResult {
  pass: boolean;
  /** What the model said, before its quote was checked. */
  modelPass: boolean;
  quote?: string;
  citation?: Citation;
  reason: string;
  warnings: string[];
}

export async function runValidate(ctx: ToolContext, args: { tab: string; assertion: string; includeHidden?: boolean; model?: string; maxTokensTotal?: number }) {
  const session = openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
  // Vault values the page shows (a filled field, an echoed user name) are hidden before the model reads it.
  const pages = (await readPagesForModel(ctx, { tab: args.tab, includeHidden: args.includeHidden })).filter((p) => p.ok).map((p) => ({ ...p, markdown: hideSecrets(ctx, p.markdown) }));
  const chunks = chunkPages(pages);
  const sent = pickChunks(chunks, args.assertion, CONTEXT_CHARS);
  const answer = await forcedAnswer(session, { system: SYSTEM, user: `Assertion: ${args.assertion}\n\nThe page:\n${fenceChunks(sent)}`, tool: JUDGE }, (a) => {
    if (typeof a.pass !== 'boolean') return '"pass" is not true or false';
    if (typeof a.quote !== 'string') return '"quote" is not a string';
    return { pass: a.pass, quote: a.quote.trim(), chunk: typeof a.chunk === 'string' ? a.chunk : undefined, reason: typeof a.reason === 'string' ? a.reason.slice(0, 1000) : '' };
  });
  const warnings: string[] = [];
  let citation: Citation | undefined;
  if (answer.quote) {
    const checked = checkCitations([{ quote: answer.quote, ...(answer.chunk ? { chunk: answer.chunk } : {}) }], chunks, pages);
    citation = checked.citations[0];
    warnings.push(...checked.warnings);
  }
  const pass = answer.pass && !!citation;
  if (answer.pass && !citation) warnings.push('the model said the assertion holds but gave no quote that is on the page, so it is not counted as a pass');
  const result: ValidateResult = { pass, modelPass: answer.pass, ...(citation ? { quote: citation.quote, citation } : {}), reason: answer.reason, warnings };
  return { tab: args.tab, url: pages[0]?.url, ...result, model: session.model.id, usage: session.usage() };
}
