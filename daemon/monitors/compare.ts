/**
 * Whether a page changed since the baseline. Text and snapshot: the lines left after `ignore` are compared
 * with a line diff (jsdiff), so a line moved or a counter ticking in an ignored line is not a change.
 * Screenshot: pixelmatch counts differing pixels, and the share of them against `threshold` decides.
 */
import { linearRegExp } from './linear-regexp.js';
import { diffLines } from 'diff';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** Lines of each side kept for the summary and the event: enough to say what changed, not a copy of the page. */
const LINES_SHOWN = 20;
const LINE_CHARS = 300;

export interface Comparison {
  changed: boolean;
  summary: string;
  added?: string[];
  removed?: string[];
  /** Screenshot: the share of pixels that differ (0-1). */
  share?: number;
}

/** Compiles ignore patterns on the linear-time engine; they were checked when the monitor was created (spec.ts). */
export function ignoreMatchers(sources: readonly string[]): RegExp[] {
  return sources.map((s) => linearRegExp(s));
}

/** The text as compared: whitespace at line ends trimmed, blank lines and ignored lines dropped. */
export function comparableText(text: string, ignore: readonly RegExp[]): string {
  const kept: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!line.trim()) continue;
    if (ignore.some((re) => re.test(line))) continue;
    kept.push(line);
  }
  return kept.length ? `${kept.join('\n')}\n` : '';
}

/**
 * A snapshot without its refs: a ref is a handle for acting on this page load, renumbered when an element
 * appears above, and says nothing about what the page shows.
 */
export function snapshotForCompare(snapshot: string): string {
  return snapshot.replace(/ \[ref=(?:f\d+:)?e\d+\]/g, '');
}

const cut = (s: string) => (s.length > LINE_CHARS ? `${s.slice(0, LINE_CHARS)}…` : s);

export function compareText(before: string, after: string): Comparison {
  if (before === after) return { changed: false, summary: 'no change' };
  const added: string[] = [];
  const removed: string[] = [];
  let addedCount = 0;
  let removedCount = 0;
  for (const part of diffLines(before, after)) {
    if (!part.added && !part.removed) continue;
    const lines = part.value.replace(/\n$/, '').split('\n');
    if (part.added) addedCount += lines.length;
    else removedCount += lines.length;
    const into = part.added ? added : removed;
    for (const l of lines) if (into.length < LINES_SHOWN) into.push(cut(l));
  }
  const first = added[0] !== undefined ? `+ ${added[0]}` : removed[0] !== undefined ? `- ${removed[0]}` : '';
  return {
    changed: true,
    summary: `${addedCount} line(s) added, ${removedCount} removed${first ? `; first: ${first}` : ''}`,
    added,
    removed,
  };
}

export function compareScreenshots(before: Buffer, after: Buffer, threshold: number): Comparison {
  const a = PNG.sync.read(before);
  const b = PNG.sync.read(after);
  if (a.width !== b.width || a.height !== b.height) {
    return { changed: true, share: 1, summary: `the picture's size changed from ${a.width}x${a.height} to ${b.width}x${b.height}` };
  }
  const differing = pixelmatch(a.data, b.data, null, a.width, a.height, { threshold: 0.1 });
  const share = a.width * a.height ? differing / (a.width * a.height) : 0;
  const pct = `${(share * 100).toFixed(2)}%`;
  return share > threshold
    ? { changed: true, share, summary: `${pct} of pixels changed (threshold ${(threshold * 100).toFixed(2)}%)` }
    : { changed: false, share, summary: share ? `${pct} of pixels changed, within the threshold` : 'no change' };
}
