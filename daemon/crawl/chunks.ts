/**
 * Chunks of an item's content with citations (URL, heading path, character offsets into the content), for
 * callers who feed crawls to their own retrieval. `content.slice(start, end) === text` always holds.
 */
import { splitPassages } from '../read/index.js';
import type { Chunk } from './types.js';

/** Rough characters per token for English prose: what `size` in tokens means for heading chunks. */
const CHARS_PER_TOKEN = 4;
const ATX = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/gm;

export function chunkContent(content: string, url: string, opts: { by: 'tokens' | 'headings'; size: number; overlap: number }): Chunk[] {
  if (opts.by === 'headings') {
    return splitPassages(content, { targetChars: opts.size * CHARS_PER_TOKEN }).map((p) => ({ url, text: p.text, headingPath: p.headingPath, start: p.start, end: p.end }));
  }
  const words = [...content.matchAll(/\S+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
  const headings = [...content.matchAll(ATX)].map((m) => ({ at: m.index!, level: m[1]!.length, text: m[2]!.trim() }));
  const pathAt = (offset: number): string[] => {
    const stack: { level: number; text: string }[] = [];
    for (const h of headings) {
      if (h.at > offset) break;
      while (stack.length && stack[stack.length - 1]!.level >= h.level) stack.pop();
      stack.push(h);
    }
    return stack.map((h) => h.text);
  };
  const step = Math.max(1, opts.size - Math.min(opts.overlap, opts.size - 1));
  const out: Chunk[] = [];
  for (let i = 0; i < words.length; i += step) {
    const last = words[Math.min(words.length, i + opts.size) - 1]!;
    const start = words[i]!.start;
    out.push({ url, text: content.slice(start, last.end), headingPath: pathAt(start), start, end: last.end });
    if (i + opts.size >= words.length) break;
  }
  return out;
}
