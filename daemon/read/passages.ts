// Splitting Markdown into passages for ranking and citation.
//
// A passage never crosses a heading, so its heading path says where it sits
// ("Guide > Ratios"); within a section, paragraphs (blank-line separated
// blocks; a fenced code block counts as one) are packed until about
// `targetChars`. A block bigger than that is cut at line ends, then sentence
// ends, then spaces. `start`/`end` are character offsets into the Markdown and
// `text` is exactly `markdown.slice(start, end)`, so a citation can point back.

export interface Passage {
  text: string;
  headingPath: string[];
  start: number;
  end: number;
}

export interface SplitOptions {
  /** Aim for passages of about this many characters (default 600). */
  targetChars?: number;
}

interface Unit {
  start: number;
  end: number;
  heading?: { level: number; text: string };
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function splitPassages(markdown: string, opts: SplitOptions = {}): Passage[] {
  const target = Math.max(50, opts.targetChars ?? 600);
  const out: Passage[] = [];
  const stack: { level: number; text: string }[] = [];
  let cur: { start: number; end: number; path: string[]; hasBody: boolean } | null = null;

  const close = () => {
    if (cur?.hasBody) out.push({ text: markdown.slice(cur.start, cur.end), headingPath: cur.path, start: cur.start, end: cur.end });
    cur = null;
  };
  const path = () => stack.map((h) => h.text);

  for (const u of units(markdown)) {
    if (u.heading) {
      close();
      while (stack.length && stack[stack.length - 1].level >= u.heading.level) stack.pop();
      stack.push(u.heading);
      // The heading line opens its section's first passage.
      cur = { start: u.start, end: u.end, path: path(), hasBody: false };
      continue;
    }
    if (cur && u.end - cur.start <= target) {
      cur.end = u.end;
      cur.hasBody = true;
      continue;
    }
    // A lone heading line may still take the start of a long block with it.
    const pieces = u.end - u.start > target ? cutLong(markdown, u.start, u.end, target) : [[u.start, u.end]];
    for (const [s, e] of pieces) {
      if (cur && e - cur.start <= target) {
        cur.end = e;
        cur.hasBody = true;
        continue;
      }
      if (cur && !cur.hasBody) {
        // Keep the heading with its first piece even if that overshoots a little.
        cur.end = e;
        cur.hasBody = true;
        continue;
      }
      close();
      cur = { start: s, end: e, path: path(), hasBody: true };
    }
  }
  close();
  return out;
}

/** Headings, fenced code blocks and paragraphs, with offsets, in order. */
function units(md: string): Unit[] {
  const out: Unit[] = [];
  let para: Unit | null = null;
  let fence: { marker: string; unit: Unit } | null = null;
  let pos = 0;
  for (const line of md.split('\n')) {
    const start = pos;
    const end = pos + line.length;
    pos = end + 1;
    if (fence) {
      fence.unit.end = end;
      const m = FENCE.exec(line);
      if (m && m[1][0] === fence.marker[0] && m[1].length >= fence.marker.length && !line.slice(m[0].length).trim()) {
        out.push(fence.unit);
        fence = null;
      }
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      if (para) out.push(para);
      para = null;
      fence = { marker: f[1], unit: { start, end } };
      continue;
    }
    const h = ATX.exec(line);
    if (h) {
      if (para) out.push(para);
      para = null;
      out.push({ start, end, heading: { level: h[1].length, text: headingText(h[2] ?? '') } });
      continue;
    }
    if (!line.trim()) {
      if (para) out.push(para);
      para = null;
      continue;
    }
    if (para) para.end = end;
    else para = { start: start + (line.length - line.trimStart().length), end };
  }
  if (fence) out.push(fence.unit); // an unclosed fence runs to the end
  if (para) out.push(para);
  return out;
}

/** Heading text as a person reads it: link targets, emphasis and escapes removed. */
function headingText(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`~]+/g, '')
    .replace(/\\(.)/g, '$1')
    .trim();
}

/** Cuts [start, end) into pieces of at most `target` chars: at line ends, sentence ends, spaces, or hard. */
function cutLong(md: string, start: number, end: number, target: number): [number, number][] {
  const pieces: [number, number][] = [];
  let s = start;
  while (end - s > target) {
    const window = md.slice(s, s + target + 1);
    let cut = lastBreak(window, /\n/g, target);
    // Western sentence ends need a following space ("3.5" is no end); CJK ones stand alone.
    if (cut < 0) cut = lastBreak(window, /[.!?](?=\s|$)|[\u3002\uff01\uff1f]/gu, target, 1);
    if (cut < 0) cut = lastBreak(window, /\s/g, target);
    if (cut <= 0) cut = target;
    // Never split a surrogate pair (an emoji or a rare CJK character).
    if (/[\udc00-\udfff]/.test(md[s + cut] ?? '')) cut--;
    let e = s + cut;
    // Do not end a piece on whitespace, nor start the next on it.
    let pe = e;
    while (pe > s && /\s/.test(md[pe - 1])) pe--;
    pieces.push([s, pe]);
    while (e < end && /\s/.test(md[e])) e++;
    s = e;
  }
  if (s < end) pieces.push([s, end]);
  return pieces;
}

/** Position just after the last match of `re` in the window's back half (so pieces are not tiny), or -1. */
function lastBreak(window: string, re: RegExp, target: number, len = 0): number {
  let best = -1;
  for (const m of window.matchAll(re)) {
    const at = m.index! + len;
    if (at > target / 2 && at <= target) best = at;
  }
  return best;
}
