/**
 * Extraction with a model: the page's best chunks for the caller's schema (BM25 over the schema's words and the
 * prompt) go to the model in the fence; it answers by the forced tool `answer` with `{data, citations}`. Nothing
 * it answers is trusted: ajv checks `data` against the caller's schema (an invalid answer gets exactly one repair
 * turn with the errors, then action_failed), and every quote is looked up on the page (checkCitations): a quote
 * not on the page is dropped and named in warnings, one in the wrong chunk is moved to the chunk that holds it.
 */
import { schemaValidator } from '../json-schema.js';
import { BrowserdError } from '../../protocol/errors.js';
import { chunkPages, fenceChunks, FENCE_RULE, pickChunks, schemaQuery, type Chunk, type PageText } from './chunks.js';
import { checkCitations, type Citation, type RawCitation } from './citations.js';
import type { ModelSession } from './session.js';
import type { ChatMessage, JsonSchema, ToolCall, ToolSpec, TurnResult } from './types.js';

/**
 * Page characters sent per extraction: room for the passages a schema's fields live in on a long page, a
 * fraction of a long article (the point of picking chunks: tokens cost money), all of a short page.
 */
export const EXTRACT_CHARS = 12000;
const ANSWER_TOOL = 'answer';
const MAX_TURNS = 2;
const OUTPUT_TOKENS = 4000;

export interface ExtractSpec {
  schema: JsonSchema;
  prompt?: string;
}

export interface Extracted {
  data: unknown;
  citations: Citation[];
  warnings: string[];
  /** Ids of the chunks that were sent. */
  sent: string[];
}


/** Refuses (validation_error, before any page is read or model asked) a schema ajv cannot compile. */
export function checkExtractSchema(schema: unknown): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new BrowserdError('validation_error', 'schema must be a JSON Schema object', { next: 'Pass e.g. {"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}.' });
  }
  try {
    schemaValidator(schema as JsonSchema);
  } catch (e) {
    throw new BrowserdError('validation_error', `schema is not a usable JSON Schema: ${(e as Error).message.slice(0, 300)}`, { next: 'Give a JSON Schema object, e.g. {"type":"object","properties":{"price":{"type":"number"}},"required":["price"]}.' });
  }
}

/** ajv's complaints about `data`, as short "path: message" lines; empty when it conforms. */
export function dataErrors(schema: JsonSchema, data: unknown): string[] {
  const v = schemaValidator(schema);
  if (v(data)) return [];
  return (v.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`);
}

const CITATION_ITEMS = (withField: boolean): JsonSchema => ({
  type: 'object',
  properties: {
    ...(withField ? { field: { type: 'string', description: 'The data property the quote supports, as a JSON pointer-like path such as "price" or "authors/0".' } } : {}),
    chunk: { type: 'string', description: 'The id of the chunk the quote is in, such as "c3".' },
    quote: { type: 'string', description: 'The exact words from that chunk (a few words to a sentence) that support the value.' },
  },
  required: ['chunk', 'quote'],
});

/**
 * The forced tool: `data` is the caller's schema. Its $defs (or definitions) move to the tool's root, so
 * "#/$defs/..." references inside the caller's schema still resolve once it sits under `data`.
 */
export function answerTool(schema: JsonSchema): ToolSpec {
  const { $defs, definitions, $schema: _drop, $id: _id, ...data } = schema as Record<string, unknown>;
  return {
    name: ANSWER_TOOL,
    description: 'Your answer: the data the schema asks for, read from the page, and a citation for each value.',
    parameters: {
      type: 'object',
      properties: {
        data: { ...data, description: typeof data.description === 'string' ? data.description : 'The values read from the page, matching the schema.' },
        citations: { type: 'array', description: 'One per value you filled: the chunk and the exact words it came from.', items: CITATION_ITEMS(true) },
      },
      required: ['data', 'citations'],
      ...($defs ? { $defs } : {}),
      ...(definitions ? { definitions } : {}),
    },
  };
}

export const EXTRACT_SYSTEM = [
  'You fill a JSON Schema with values read from web page text.',
  'The page text comes as chunks, each headed by its id ([chunk c3]), its URL and its section.',
  `Answer only by calling ${ANSWER_TOOL} with "data" (matching the schema exactly: types, required properties, enums) and "citations": for every value, the chunk id and the exact words of that chunk it came from.`,
  'Use only what the page says; where the schema allows leaving a value out and the page does not hold it, leave it out. Never invent values or quotes.',
  FENCE_RULE,
].join('\n');

export function firstMessage(spec: ExtractSpec, chunks: Chunk[], totalChunks: number): string {
  const parts = [`JSON Schema to fill:\n${JSON.stringify(spec.schema)}`];
  if (spec.prompt) parts.push(`Instruction from the caller: ${spec.prompt}`);
  parts.push(`Page text (${chunks.length} of ${totalChunks} chunks, the ones most likely to hold the values):`);
  parts.push(fenceChunks(chunks));
  return parts.join('\n\n');
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The answer's arguments: the forced call's, or (a model that wrote text anyway) JSON in its text. */
export function answerArgs(r: TurnResult, tool = ANSWER_TOOL): { args?: Record<string, unknown>; call?: ToolCall } {
  const call = r.toolCalls.find((c) => c.name === tool) ?? r.toolCalls[0];
  if (call) return { args: isObject(call.args) ? call.args : undefined, call };
  try {
    const parsed = JSON.parse(r.text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
    return { args: isObject(parsed) ? parsed : undefined };
  } catch {
    return {};
  }
}

/** Well-formed citations of an answer; anything else is a problem to repair. */
export function rawCitations(v: unknown): { raw: RawCitation[]; problems: string[] } {
  if (v === undefined) return { raw: [], problems: [] };
  if (!Array.isArray(v)) return { raw: [], problems: ['citations: must be an array of {field, chunk, quote}'] };
  const raw: RawCitation[] = [];
  const problems: string[] = [];
  v.slice(0, 200).forEach((c, i) => {
    if (!isObject(c) || typeof c.quote !== 'string') return void problems.push(`citations/${i}: must be {field, chunk, quote} with quote a string`);
    raw.push({ quote: c.quote, ...(typeof c.chunk === 'string' ? { chunk: c.chunk } : {}), ...(typeof c.field === 'string' ? { field: c.field } : {}) });
  });
  return { raw, problems };
}

/**
 * Asks the model, repairs once, checks citations. `pages` are the pages the chunks came from (one page for a
 * per-url extraction). Throws action_failed when the repaired answer is still invalid; budget_exceeded (nothing
 * sent) when a turn cannot fit what is left of the session's budget.
 */
export async function extractFromPages(session: ModelSession, pages: PageText[], spec: ExtractSpec, maxChars = EXTRACT_CHARS): Promise<Extracted> {
  const all = chunkPages(pages);
  if (!all.length) throw new BrowserdError('action_failed', `no readable text on ${pages.map((p) => p.url).join(', ')}`, { next: 'Check the page shows its content (browser_read), or pass includeHidden when the text is there but hidden.' });
  const picked = pickChunks(all, `${schemaQuery(spec.schema)} ${spec.prompt ?? ''}`, maxChars);
  const tool = answerTool(spec.schema);
  const messages: ChatMessage[] = [{ role: 'user', content: firstMessage(spec, picked, all.length) }];
  let problems: string[] = [];
  for (let turn = 1; turn <= MAX_TURNS; turn++) {
    const r = await session.turn({ system: EXTRACT_SYSTEM, messages, tools: [tool], toolChoice: { name: ANSWER_TOOL }, maxOutputTokens: OUTPUT_TOKENS });
    const { args, call } = answerArgs(r);
    if (!args || !('data' in args)) problems = [`the answer was not a call of ${ANSWER_TOOL} with {"data": ..., "citations": [...]}`];
    else {
      const cited = rawCitations(args.citations);
      problems = [...dataErrors(spec.schema, args.data).map((e) => `data${e.startsWith('/') ? e : ` ${e}`}`), ...cited.problems];
      if (!problems.length) {
        const checked = checkCitations(cited.raw, all, pages);
        return { data: args.data, citations: checked.citations, warnings: checked.warnings, sent: picked.map((c) => c.id) };
      }
    }
    if (turn === MAX_TURNS) break;
    const repair = [`That answer does not match the schema:`, ...problems.map((p) => `- ${p}`), `Call ${ANSWER_TOOL} again with the whole corrected answer.`].join('\n');
    if (call) {
      messages.push({ role: 'assistant', content: r.text || undefined, toolCalls: [call] });
      messages.push({ role: 'tool', callId: call.id, name: call.name, content: repair });
    } else {
      messages.push({ role: 'assistant', content: r.text || '(no answer)' });
      messages.push({ role: 'user', content: repair });
    }
  }
  // The problems quote the model's answer (keys and values it made up from the page): the error's page text.
  throw new BrowserdError('action_failed', `the model's answer did not match the schema after one repair turn (${problems.length} problem(s), listed in the page text of this error)`, {
    next: 'Try another model, a prompt that says where the values are, or a schema with fewer required properties.',
    details: { problems: problems.slice(0, 20) },
    pageText: problems.slice(0, 20).join('\n'),
  });
}
