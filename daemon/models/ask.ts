/**
 * A question answered from pages: the chunks that best match the question (BM25, across every page of the
 * call) go to the model in the fence; it answers by the forced tool `answer` with `{answer, citations}`. A
 * malformed answer gets one repair turn; the quotes are checked against the pages like an extraction's, so a
 * quote not on a page never comes back as a citation.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { chunkPages, fenceChunks, FENCE_RULE, pickChunks, type PageText } from './chunks.js';
import { checkCitations, type Citation } from './citations.js';
import { answerArgs, rawCitations } from './extract.js';
import type { ModelSession } from './session.js';
import type { ChatMessage, ToolSpec } from './types.js';

/** Page characters sent for a question: the best passages over all pages of the call. */
export const ASK_CHARS = 16000;
const TOOL = 'answer';
const MAX_TURNS = 2;

const ANSWER_TOOL: ToolSpec = {
  name: TOOL,
  description: 'Your answer to the question, with the chunk and exact words each claim rests on.',
  parameters: {
    type: 'object',
    properties: {
      answer: { type: 'string', description: 'The answer, in a few sentences; say plainly when the pages do not answer it.' },
      citations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            chunk: { type: 'string', description: 'The id of the chunk, such as "c3".' },
            quote: { type: 'string', description: 'The exact words from that chunk (a few words to a sentence).' },
          },
          required: ['chunk', 'quote'],
        },
      },
    },
    required: ['answer', 'citations'],
  },
};

const SYSTEM = [
  'You answer a question from web page text only.',
  'The page text comes as chunks, each headed by its id ([chunk c3]), its URL and its section.',
  `Answer only by calling ${TOOL} with "answer" and "citations": for each claim, the chunk id and the exact words of that chunk it rests on. If the pages do not answer the question, say so and cite nothing.`,
  FENCE_RULE,
].join('\n');

export interface Answered {
  answer: string;
  citations: Citation[];
  warnings: string[];
}

export async function askPages(session: ModelSession, pages: PageText[], question: string, maxChars = ASK_CHARS): Promise<Answered> {
  const all = chunkPages(pages);
  if (!all.length) throw new BrowserdError('action_failed', 'the pages have no readable text to answer from', { next: 'Check the pages show their content (browser_read), or pass includeHidden when the text is there but hidden.' });
  const picked = pickChunks(all, question, maxChars);
  const messages: ChatMessage[] = [{ role: 'user', content: `Question: ${question}\n\nPage text (${picked.length} of ${all.length} chunks, the ones that best match the question):\n\n${fenceChunks(picked)}` }];
  let problems: string[] = [];
  for (let turn = 1; turn <= MAX_TURNS; turn++) {
    const r = await session.turn({ system: SYSTEM, messages, tools: [ANSWER_TOOL], toolChoice: { name: TOOL }, maxOutputTokens: 2000 });
    const { args, call } = answerArgs(r, TOOL);
    const cited = rawCitations(args?.citations);
    problems = [...(typeof args?.answer === 'string' && args.answer.trim() ? [] : [`the answer was not a call of ${TOOL} with a non-empty "answer" string`]), ...cited.problems];
    if (!problems.length) {
      const checked = checkCitations(cited.raw, all, pages);
      return { answer: (args!.answer as string).trim(), citations: checked.citations, warnings: checked.warnings };
    }
    if (turn === MAX_TURNS) break;
    const repair = ['That answer is malformed:', ...problems.map((p) => `- ${p}`), `Call ${TOOL} again with {"answer": "...", "citations": [{"chunk": "c1", "quote": "..."}]}.`].join('\n');
    if (call) {
      messages.push({ role: 'assistant', content: r.text || undefined, toolCalls: [call] });
      messages.push({ role: 'tool', callId: call.id, name: call.name, content: repair });
    } else {
      messages.push({ role: 'assistant', content: r.text || '(no answer)' });
      messages.push({ role: 'user', content: repair });
    }
  }
  // The problems can quote the model's answer: the error's page text.
  throw new BrowserdError('action_failed', 'the model did not answer in the required form after one repair turn (the problems are the page text of this error)', { next: 'Try another model, or ask a narrower question.', details: { problems }, pageText: problems.join('\n') });
}
