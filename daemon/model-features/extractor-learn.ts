/**
 * Learning an extractor: the model sees the schema, the caller's instruction and a fenced outline of the page's
 * visible HTML, and answers one CSS selector (and maybe an attribute) per field. Nothing it answers is trusted:
 * the selectors are run on the page and the values judged against the schema (extractor-values.ts). When they
 * fail, the model gets one more turn with what failed; when they fail again the call is action_failed and
 * nothing is kept. A learned extractor therefore always worked on at least one real page.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { ExtractorField } from '../../storage/extractors.js';
import type { HDocument } from '../read/html-tree.js';
import { FENCE_RULE, fenceText } from '../models/chunks.js';
import { htmlOutline } from '../models/html-outline.js';
import { judgeValues, readExtractorValues, requiredFields, selectorProblems, wantsList } from '../models/extractor-values.js';
import type { ModelSession } from '../models/session.js';
import type { ChatMessage, JsonSchema, ToolSpec, TurnResult } from '../models/types.js';

/** A page as the learner sees it: where it is and its visible HTML, parsed. */
export interface ExtractorPage {
  url: string;
  doc: HDocument;
}

export interface LearnSpec {
  schema: JsonSchema;
  prompt?: string;
}

/** What a re-learn knows: the selectors that used to work, and how they fail now. */
export interface PreviousAttempt {
  fields: Record<string, ExtractorField>;
  failures: string[];
}

export interface Learned {
  fields: Record<string, ExtractorField>;
  /** What the proven selectors read on the page. */
  data: Record<string, unknown>;
}

const TOOL = 'answer_selectors';
/** Outline characters sent: room for a large page's structure, far below any model's window. */
const OUTLINE_CHARS = 40000;
const MAX_ATTEMPTS = 2;

const SYSTEM = [
  'You write CSS selectors that read named fields from a web page.',
  'You get a JSON Schema with one property per field, perhaps an instruction, and an outline of the page\'s visible HTML: one line per element with its tag, #id, .classes, some attributes and the start of its own text; "… N more like these" stands for repeated siblings.',
  `Answer by calling ${TOOL}: for each field, "css" is a selector for document.querySelector on the real page (prefer ids, itemprop and meaningful classes over positions; the outline shows every attribute a selector can rely on), and "attr" names an attribute (href, src, content, datetime ...) when the value is that attribute rather than the element's text.`,
  'A field\'s value is the text of the first match, or of every match when the schema makes it a list; it must satisfy the schema (a number field\'s text must hold exactly one number). Leave out a field the page does not hold.',
  FENCE_RULE,
].join('\n');

function answerTool(schema: JsonSchema): ToolSpec {
  const props: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    props[name] = {
      type: 'object',
      description: typeof sub.description === 'string' ? sub.description : `Where "${name}" is on the page.`,
      properties: {
        css: { type: 'string', description: 'CSS selector.' },
        attr: { type: 'string', description: 'Attribute to read instead of the text.' },
      },
      required: ['css'],
    };
  }
  return {
    name: TOOL,
    description: 'The selector (and optional attribute) of each field.',
    parameters: { type: 'object', properties: { fields: { type: 'object', properties: props, required: requiredFields(schema) } }, required: ['fields'] },
  };
}

function firstMessage(page: ExtractorPage, spec: LearnSpec, previous?: PreviousAttempt): string {
  const parts = [`Fields to read (JSON Schema):\n${JSON.stringify(spec.schema)}`];
  if (spec.prompt) parts.push(`Instruction: ${spec.prompt}`);
  if (previous) {
    parts.push(`These selectors worked on this site before and fail on this page now:\n${JSON.stringify(previous.fields)}`);
    parts.push(fenceText('what failed', previous.failures.join('\n'), 4000));
  }
  parts.push(`Page ${page.url}:`);
  parts.push(fenceText(`outline of ${page.url}`, htmlOutline(page.doc, OUTLINE_CHARS), OUTLINE_CHARS + 1000));
  return parts.join('\n\n');
}

/** The answer's fields, from the forced tool call or (a provider that answered in text) JSON in its text. */
function answeredFields(r: TurnResult): { fields?: Record<string, unknown>; call?: TurnResult['toolCalls'][number] } {
  const call = r.toolCalls.find((c) => c.name === TOOL) ?? r.toolCalls[0];
  if (call) return { fields: isObject(call.args.fields) ? call.args.fields : undefined, call };
  try {
    const parsed = JSON.parse(r.text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
    return { fields: isObject(parsed?.fields) ? parsed.fields : isObject(parsed) ? parsed : undefined };
  } catch {
    return {};
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The model's answer as fields we can run, with `all` set by the schema (a list field reads every match). */
function toFields(schema: JsonSchema, answer: Record<string, unknown>): { fields: Record<string, ExtractorField>; problems: string[] } {
  const fields: Record<string, ExtractorField> = {};
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(answer)) {
    const spec = typeof raw === 'string' ? { css: raw } : isObject(raw) ? raw : undefined;
    if (!spec || typeof spec.css !== 'string' || !spec.css.trim() || spec.css.length > 1000) {
      if (spec && (spec.css === '' || spec.css === undefined)) continue; // the model says the page does not hold it
      problems.push(`${name}: "css" must be a selector string`);
      continue;
    }
    const f: ExtractorField = { css: spec.css.trim() };
    if (typeof spec.attr === 'string' && spec.attr.trim()) f.attr = spec.attr.trim();
    if (wantsList(schema, name)) f.all = true;
    fields[name] = f;
  }
  problems.push(...selectorProblems(schema, fields));
  return { fields, problems };
}

/** Lines telling the model what its selectors did wrong on the page (values are page text: fenced by the caller). */
export function failuresOf(schema: JsonSchema, fields: Record<string, ExtractorField>, doc: HDocument, url: string): { failures: string[]; data: Record<string, unknown>; ok: boolean; missing: string[]; errors: string[] } {
  const judged = judgeValues(schema, readExtractorValues(doc, url, fields));
  const failures = [
    ...judged.missing.map((n) => (fields[n] ? `${n}: no element matches ${JSON.stringify(fields[n].css)}${fields[n].attr ? ` with attribute ${fields[n].attr}` : ''} (or its text is empty)` : `${n}: required, but no selector was given`)),
    ...judged.errors,
  ];
  return { failures, data: judged.data, ok: judged.ok, missing: judged.missing, errors: judged.errors };
}

/**
 * Asks for selectors and proves them on `page`; one retry with what failed. Throws action_failed (naming the
 * fields that failed, never page text) when the second answer fails too.
 */
export async function learnSelectors(session: ModelSession, page: ExtractorPage, spec: LearnSpec, previous?: PreviousAttempt): Promise<Learned> {
  const tool = answerTool(spec.schema);
  const messages: ChatMessage[] = [{ role: 'user', content: firstMessage(page, spec, previous) }];
  let lastFailures: string[] = [];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const r = await session.turn({ system: SYSTEM, messages, tools: [tool], toolChoice: { name: TOOL }, maxOutputTokens: 2000 });
    const { fields: answer, call } = answeredFields(r);
    let failures: string[];
    let shown: Record<string, unknown> = {};
    if (!answer) failures = [`the answer was not a call of ${TOOL} with {"fields": {name: {"css", "attr"?}}}`];
    else {
      const { fields, problems } = toFields(spec.schema, answer);
      if (problems.length) failures = problems;
      else {
        const judged = failuresOf(spec.schema, fields, page.doc, page.url);
        if (judged.ok) return { fields, data: judged.data };
        failures = judged.failures;
        shown = judged.data;
      }
    }
    lastFailures = failures;
    if (attempt === MAX_ATTEMPTS) break;
    const retry = [
      'Those selectors do not work on the page:',
      ...failures.map((f) => `- ${f}`),
      Object.keys(shown).length ? `What they read (page text):\n${fenceText('values read', JSON.stringify(shown), 4000)}` : '',
      `Call ${TOOL} again with corrected selectors for every field.`,
    ].filter(Boolean).join('\n');
    if (call) {
      messages.push({ role: 'assistant', content: r.text || undefined, toolCalls: [call] });
      messages.push({ role: 'tool', callId: call.id, name: call.name, content: retry });
    } else {
      messages.push({ role: 'assistant', content: r.text });
      messages.push({ role: 'user', content: retry });
    }
  }
  throw new BrowserdError('action_failed', `the model's selectors did not read the schema's fields on ${page.url} after one retry: ${lastFailures.map((f) => f.split(':')[0]).filter((v, i, a) => a.indexOf(v) === i).join(', ')} failed`, {
    next: 'Try another model, a prompt that says where the fields are, a page that shows every required field, or fewer required fields.',
    details: { failures: lastFailures.slice(0, 20) },
  });
}
