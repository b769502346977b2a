/**
 * findText: case-insensitive search of the visible text, across inline element boundaries (`<b>Hel</b>lo`
 * matches "hello"), in open shadow roots and same-origin frames. Each block's text is searched as one
 * string and a match maps back to the deepest element containing all of its text nodes; that element gets a
 * ref (valid while its element lives). The first match is scrolled into view. No match is an empty list.
 */
import type { FindTextMatch } from './api.js';
import { Ctx } from './ctx.js';
import { collapse, commonAncestor } from './dom.js';
import { grant } from './refs.js';
import { scrollIntoViewIfNeeded } from './actions.js';
import { TextCollector, walkText } from './text.js';
import { isVisible } from './visibility.js';

const CONTEXT_SIDE = 40;
const COUNT_CAP = 10000;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function findText(o: { text: string; limit?: number; includeHidden?: boolean }): { matches: FindTextMatch[]; total: number } {
  const needle = collapse(String(o.text ?? ''));
  if (!needle) return { matches: [], total: 0 };
  const limit = Math.max(1, Math.min(100, Math.floor(o.limit ?? 20)));
  const c = new Ctx(!!o.includeHidden);
  const col = new TextCollector();
  const root = document.body ?? document.documentElement;
  walkText(root, c, col, { frames: true });
  col.finish();
  const re = new RegExp(needle.split(' ').map(escapeRe).join('\\s+'), 'giu');
  const matches: FindTextMatch[] = [];
  const elements: Element[] = [];
  let total = 0;
  for (const block of col.blocks) {
    for (const m of block.text.matchAll(re)) {
      if (!m[0]) continue;
      total++;
      if (matches.length >= limit) {
        if (total >= COUNT_CAP) break;
        continue;
      }
      const s = m.index ?? 0;
      const e = s + m[0].length;
      const nodes = block.segs.filter((g) => g.node && g.end > s && g.start < e).map((g) => g.node!) as Node[];
      const el = commonAncestor(nodes);
      if (!el) continue;
      const before = block.text.slice(Math.max(0, s - CONTEXT_SIDE), s);
      const after = block.text.slice(e, e + CONTEXT_SIDE);
      const context = `${s > CONTEXT_SIDE ? '…' : ''}${collapse(before)}${/\s$/.test(before) ? ' ' : ''}${m[0]}${/^\s/.test(after) ? ' ' : ''}${collapse(after)}${e + CONTEXT_SIDE < block.text.length ? '…' : ''}`;
      matches.push({ ref: grant(el), text: m[0], context });
      elements.push(el);
    }
    if (total >= COUNT_CAP) break;
  }
  if (elements[0] && isVisible(elements[0], c)) scrollIntoViewIfNeeded(elements[0]);
  return { matches, total };
}
