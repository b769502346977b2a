/**
 * A model's citations, checked against the page: a quote stays only when its words, in order, are in the page
 * text (case, whitespace and punctuation between words folded), and it is then pinned to the chunk that
 * really holds it, with offsets into that page's Markdown. A quote found nowhere is dropped and named in the
 * warnings, so a made-up quote never reaches the caller as a citation.
 */
import { Type } from '@sinclair/typebox';
import type { Chunk, PageText } from './chunks.js';
import type { Citation } from '../../protocol/model-params.js';
import { PageText as PageTextField } from '../../protocol/output-fields.js';

export type { Citation };

/** A Citation as a result field: the quote is the page's own words, fenced over MCP. */
export const CitationSchema = Type.Object({
  field: Type.Optional(Type.String({ description: 'The schema field the quote backs (extraction).' })),
  chunk: Type.String({ description: 'The passage id the quote was found in (c1, c2, ...).' }),
  quote: PageTextField({ description: 'Words of the page, checked to be on it.' }),
  url: PageTextField({ description: 'The page the quote is on.' }),
  headingPath: Type.Array(PageTextField(), { description: 'The headings the quote sits under, outermost first.' }),
  start: Type.Integer({ description: "Where the quote starts in the page's Markdown (characters)." }),
  end: Type.Integer({ description: "Where it ends in the page's Markdown (exclusive)." }),
});

export interface RawCitation {
  field?: string;
  chunk?: string;
  quote: string;
  url?: string;
}


/** Longest quote kept: a citation is a few words to a sentence or two, not a page. */
const QUOTE_MAX = 1000;

interface Folded {
  text: string;
  /** Offset in the original text of each folded character. */
  at: number[];
}

/** Lower-cased words separated by single spaces, with a space at each end, and where each character came from. */
function fold(s: string): Folded {
  const text: string[] = [' '];
  const at: number[] = [0];
  let gap = true;
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (/[\p{L}\p{N}]/u.test(ch)) {
      for (const c of ch.toLowerCase()) {
        text.push(c);
        at.push(i);
      }
      gap = false;
    } else if (!gap) {
      text.push(' ');
      at.push(i);
      gap = true;
    }
    i += ch.length;
  }
  if (!gap) {
    text.push(' ');
    at.push(s.length);
  }
  return { text: text.join(''), at };
}

export function checkCitations(raw: RawCitation[], chunks: Chunk[], pages: PageText[]): { citations: Citation[]; warnings: string[] } {
  const folded = new Map(pages.map((p) => [p.url, fold(p.markdown)]));
  const citations: Citation[] = [];
  const warnings: string[] = [];
  for (const r of raw) {
    const quote = typeof r.quote === 'string' ? r.quote.slice(0, QUOTE_MAX) : '';
    const q = fold(quote).text;
    const where = r.field ? `the citation for "${r.field}"` : 'a citation';
    if (q.trim().length === 0) {
      warnings.push(`${where} had no quote and was dropped`);
      continue;
    }
    const claimed = chunks.find((c) => c.id === r.chunk);
    const found = locate(q, claimed, chunks, pages, folded);
    if (!found) {
      warnings.push(`${where} quoted words that are not on the page and was dropped: "${quote.slice(0, 120)}${quote.length > 120 ? '…' : ''}"`);
      continue;
    }
    if (claimed && claimed.id !== found.chunk.id) warnings.push(`${where} named chunk ${claimed.id}; its words are in ${found.chunk.id}, which it now cites`);
    const page = pages.find((p) => p.url === found.chunk.url)!;
    citations.push({
      ...(r.field !== undefined ? { field: r.field } : {}),
      chunk: found.chunk.id,
      quote: page.markdown.slice(found.start, found.end),
      url: found.chunk.url,
      headingPath: found.chunk.headingPath,
      start: found.start,
      end: found.end,
    });
  }
  return { citations, warnings };
}

/** Where the folded quote is: inside the claimed chunk first, else anywhere on its page, else on any page. */
function locate(q: string, claimed: Chunk | undefined, chunks: Chunk[], pages: PageText[], folded: Map<string, Folded>) {
  const order = claimed ? [claimed.url, ...pages.map((p) => p.url).filter((u) => u !== claimed.url)] : pages.map((p) => p.url);
  for (const url of order) {
    const f = folded.get(url);
    if (!f) continue;
    const hits: number[] = [];
    for (let i = f.text.indexOf(q); i !== -1; i = f.text.indexOf(q, i + 1)) hits.push(i);
    if (!hits.length) continue;
    const spans = hits.map((i) => ({ start: f.at[i + 1], end: f.at[i + q.length - 2] + 1 }));
    const inClaimed = claimed && claimed.url === url ? spans.find((s) => s.start >= claimed.start && s.end <= claimed.end) : undefined;
    const span = inClaimed ?? spans[0];
    const chunk = (inClaimed ? claimed : undefined) ?? chunks.find((c) => c.url === url && span.start >= c.start && span.start < c.end);
    if (chunk) return { chunk, start: span.start, end: span.end };
  }
  return undefined;
}
