/**
 * The elements an act step can aim at, read from a tab's snapshot text, and the page's structure hash.
 *
 * Refs (e12) are handed out per page load, so a remembered step cannot keep its ref. It keeps what a person
 * would use to find the element again: its role, its accessible name, and which of the elements with that
 * role and name it is, counted in snapshot order (nth, from 0). On a page with the same structure hash the
 * same role+name+nth is the same element, so a cached step finds its new ref by that triple.
 *
 * The structure hash covers the role and name of every element with a ref, in order: what a step can aim at.
 * Values typed into fields, checked states and plain text are left out, so filling a form or a changing
 * headline does not make a page "new", while a button that appears or is renamed does.
 */
import { createHash } from 'node:crypto';

import type { Target } from '../../storage/action-cache.js';

export type { Target };

export interface PageTarget extends Target {
  ref: string;
}

export interface PageTargets {
  targets: PageTarget[];
  byRef: Map<string, PageTarget>;
  structure: string;
}

const REF = /\[ref=((?:f\d+:)?e\d+)\]/;
/** `- role "name"` at the start of a line (after indentation and the optional `*` of markNewSince). */
const ROLE_LINE = /^\s*\*?- ([a-z][a-z-]*)(?: ("(?:[^"\\]|\\.)*"))?(?=[ :]|$)/;
/** A table row printed as cells: `- Pears|1.20|Edit [ref=e20]`. */
const CELLS_LINE = /^\s*\*?- (.*?) \[ref=/;

export function pageTargets(snapshotText: string): PageTargets {
  const targets: PageTarget[] = [];
  const seen = new Map<string, number>();
  for (const line of snapshotText.split('\n')) {
    const ref = REF.exec(line)?.[1];
    if (!ref) continue;
    let role: string;
    let name = '';
    const m = ROLE_LINE.exec(line);
    if (m && !line.slice(m[0].length).startsWith('|')) {
      role = m[1];
      if (m[2]) name = unquote(m[2]);
    } else {
      role = 'cell';
      name = CELLS_LINE.exec(line)?.[1] ?? '';
    }
    const key = `${role}\u0000${name}`;
    const nth = seen.get(key) ?? 0;
    seen.set(key, nth + 1);
    targets.push({ ref, role, name, nth });
  }
  const structure = createHash('sha256')
    .update(targets.map((t) => `${t.role}\u0000${t.name}`).join('\u0001'))
    .digest('hex')
    .slice(0, 32);
  return { targets, byRef: new Map(targets.map((t) => [t.ref, t])), structure };
}

/** The element with this role, name and position on the page now, if there is one. */
export function findTarget(page: PageTargets, want: Target): PageTarget | undefined {
  return page.targets.find((t) => t.role === want.role && t.name === want.name && t.nth === want.nth);
}

export function describeTarget(t: Target): string {
  return `${t.role}${t.name ? ` ${JSON.stringify(t.name)}` : ''}${t.nth ? ` (#${t.nth + 1})` : ''}`;
}

function unquote(q: string): string {
  try {
    return JSON.parse(q) as string;
  } catch {
    return q.slice(1, -1);
  }
}
