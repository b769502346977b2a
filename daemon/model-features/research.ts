/**
 * Research: a question answered from the web with quotes checked against the pages. The search backend finds
 * pages, the best results are read through browser_read's pipeline (read-only scratch tabs, hidden text out),
 * cut into chunks of which only the best-matching are sent, fenced; the model answers with citations
 * (chunk, URL, quote), and a quote whose words are not on its page is dropped and named in the warnings.
 */
import { randomBytes } from 'node:crypto';
import { BrowserdError } from '../../protocol/errors.js';
import type { ResearchCitation, ResearchRecord, ResearchSource } from '../../protocol/tasks.js';
import { checkUrl } from '../net/url-check.js';
import type { ToolContext } from '../call/context.js';
import { readPagesForModel } from '../reading/model-pages.js';
import { chunkPages, fenceChunks, FENCE_RULE, pickChunks } from '../models/chunks.js';
import { checkCitations, type RawCitation } from '../models/citations.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import type { ChatMessage, JsonSchema } from '../models/types.js';

export const QUESTION_MAX = 2000;
export const MAX_SOURCES = 20;
export const DEFAULT_SOURCES = 5;
/** Page text sent with the question: enough for several good passages, far below a whole page set. */
const CONTEXT_CHARS = 24000;
/** What a search backend accepts as a query (browser_search's own limit). */
const QUERY_MAX = 500;

export interface ResearchArgs {
  question: string;
  maxSources?: number;
  model?: string;
  maxTokensTotal?: number;
}

const ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    answer: { type: 'string', description: 'The answer to the question, in a few sentences, from the page text only.' },
    citations: {
      type: 'array',
      description: 'One entry per claim in the answer.',
      items: {
        type: 'object',
        properties: {
          chunk: { type: 'string', description: 'The id of the chunk the quote is from, such as c3.' },
          url: { type: 'string', description: 'The URL of the page the chunk is from.' },
          quote: { type: 'string', description: 'A short passage copied word for word from that chunk.' },
        },
        required: ['chunk', 'url', 'quote'],
        additionalProperties: false,
      },
    },
  },
  required: ['answer', 'citations'],
  additionalProperties: false,
};

const SYSTEM = [
  'You answer a research question from the web pages given, and from nothing else.',
  'Answer in a few sentences. Back each claim with a citation: the chunk id, the page URL, and a short quote copied word for word from that chunk.',
  'If the pages do not answer the question, say so and give no citations.',
  FENCE_RULE,
].join(' ');

export async function runResearch(ctx: ToolContext, args: ResearchArgs): Promise<ResearchRecord> {
  const backend = ctx.env.search;
  if (!backend) throw new BrowserdError('not_configured', 'no search backend is configured on this host', { next: 'Ask the admin to set BROWSERD_SEARXNG_URL or BROWSERD_BRAVE_API_KEY; meanwhile ask about pages you know with POST /v1/ask.' });
  // Model and key first: a bad model id or a missing key fails before any search or page is fetched.
  const session = openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
  const maxSources = args.maxSources ?? DEFAULT_SOURCES;
  const found = await backend.search(args.question.slice(0, QUERY_MAX), { limit: Math.min(50, maxSources * 2), signal: ctx.signal });
  const picked = bestResults(ctx, found, maxSources);
  ctx.checkCancelled();
  const warnings: string[] = [];
  if (!picked.length) throw new BrowserdError('action_failed', `the search found no page to read for this question (${found.length} result(s), none a readable web address)`, { next: 'Ask the question in other words, or ask about known pages with POST /v1/ask.' });
  const read = await readPagesForModel(ctx, { urls: picked.map((r) => r.url) });
  const sources: ResearchSource[] = picked.map((r, i) => {
    const page = read[i];
    return { url: r.url, ...(r.title ? { title: r.title } : {}), ...(r.snippet ? { snippet: r.snippet } : {}), ok: !!page?.ok, ...(page?.error ? { error: page.error } : {}) };
  });
  const pages = read.filter((p) => p.ok && p.markdown.trim());
  for (const s of sources) if (!s.ok) warnings.push(`${s.url} could not be read${s.error ? `: ${s.error}` : ''}; it gave nothing to the answer`);
  if (!pages.length) throw new BrowserdError('action_failed', `none of the ${picked.length} result page(s) could be read`, { next: 'Try again later, or ask about other pages with POST /v1/ask.', details: { sources } });
  const chunks = chunkPages(pages);
  const sent = pickChunks(chunks, args.question, CONTEXT_CHARS);
  const { answer, raw } = await ask(session, args.question, fenceChunks(sent));
  const checked = checkCitations(raw, chunks, pages);
  const citations: ResearchCitation[] = checked.citations.map((c) => ({ url: c.url, quote: c.quote, chunk: c.chunk, headingPath: c.headingPath, start: c.start, end: c.end }));
  const usage = session.usage();
  return {
    id: `res_${randomBytes(8).toString('hex')}`,
    question: args.question,
    answer,
    citations,
    sources,
    warnings: [...warnings, ...checked.warnings],
    model: session.model.id,
    usage: { turns: usage.turns, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
    createdAt: new Date().toISOString(),
  };
}

/** The first results with addresses pages may be read from (http/https, not refused by the URL check), each once. */
function bestResults(ctx: ToolContext, results: { title: string; url: string; snippet: string }[], max: number) {
  const seen = new Set<string>();
  const out: { title: string; url: string; snippet: string }[] = [];
  for (const r of results) {
    if (out.length >= max) break;
    let url: string;
    try {
      url = checkUrl(r.url, ctx.env.cfg);
    } catch {
      continue;
    }
    if (!/^https?:/i.test(url) || seen.has(url)) continue;
    seen.add(url);
    out.push({ ...r, url });
  }
  return out;
}

/** One turn in JSON mode; an answer that is not the asked-for shape gets one repair turn naming what was wrong. */
async function ask(session: ModelSession, question: string, fenced: string): Promise<{ answer: string; raw: RawCitation[] }> {
  const messages: ChatMessage[] = [{ role: 'user', content: `Question: ${question}\n\nPages:\n${fenced}` }];
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await session.turn({ system: SYSTEM, messages, jsonSchema: { name: 'research_answer', schema: ANSWER_SCHEMA }, maxOutputTokens: 2048 });
    const parsed = parseAnswer(res.text);
    if (typeof parsed !== 'string') return parsed;
    messages.push({ role: 'assistant', content: res.text }, { role: 'user', content: `That answer was not usable: ${parsed}. Answer again as one JSON object {"answer": string, "citations": [{"chunk", "url", "quote"}]}.` });
  }
  throw new BrowserdError('action_failed', `the model ${session.model.id} did not answer in the asked-for shape, even after one repair turn`, { next: 'Try again, or choose another model (GET /v1/models).' });
}

/** The answer, or what is wrong with it. */
function parseAnswer(text: string): { answer: string; raw: RawCitation[] } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'it is not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.answer !== 'string') return '"answer" is not a string';
  if (o.citations !== undefined && !Array.isArray(o.citations)) return '"citations" is not an array';
  const raw: RawCitation[] = [];
  for (const c of (o.citations as unknown[] | undefined) ?? []) {
    if (!c || typeof c !== 'object') continue;
    const r = c as Record<string, unknown>;
    // A citation without a quote is kept for checkCitations, which drops it and says so in the warnings.
    raw.push({ quote: typeof r.quote === 'string' ? r.quote : '', ...(typeof r.chunk === 'string' ? { chunk: r.chunk } : {}), ...(typeof r.url === 'string' ? { url: r.url } : {}) });
  }
  return { answer: o.answer, raw };
}
