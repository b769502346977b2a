/**
 * Frames the top document's script cannot enter (cross-origin ones, in another process or not) are read and
 * acted on through their own CDP session and their own `browserd` world. The top script numbers each such
 * <iframe> like a same-origin one (K); the frame's script numbers its elements `eN` (and its own same-origin
 * frames `fJ:eN`); here those become one tab-wide `fK:eN`. A frame reached inside another cross-origin frame
 * gets a number the top script reserves, so one K never names two frames while the top document lives.
 *
 * Readings (snapshot, readText, visibleHtml) carry a random per-call mark where each such frame is; the
 * frame's own reading goes there, refs renamed, and it is page text inside the same fence as the rest.
 * Searches (findText, query) add each visible frame's matches after the page's own. A call on a ref goes to
 * the frame's world with the frame's own name for it; a point comes back in the top viewport (the frame's
 * content box corner added), so a real pointer event sent to the tab's page lands on it.
 */
import { randomBytes } from 'node:crypto';
import type { InjectedApi, InjectedFunctionName, QueryMatch, FindTextMatch } from '../../injected/api.js';

/** A frame's document as reached from the daemon: its session, its frame id, and where its <iframe> is. */
export interface FrameCtx {
  key: string;
  session: string;
  frameId: string;
  /** The context its <iframe> element lives in (null: the top document's script). */
  parent: FrameCtx | null;
  /** That element's frame number in the parent's script. */
  ownerK: number;
}

/** What the tab gives: calls into a world (null: the top one) and the frame behind an <iframe> element. */
export interface FrameHost {
  /** With expectWorld, fails stale_ref unless the call runs in that world (the frame still shows the document the ref came from). */
  callIn<K extends InjectedFunctionName>(ctx: FrameCtx | null, fn: K, args: unknown[], expectWorld?: number): Promise<ReturnType<InjectedApi[K]>>;
  /** The world id of the frame's current document (the one the last call ran in). */
  worldOf(ctx: FrameCtx): Promise<number>;
  /** The session and frame id of frame K of the ctx's document, or null when it is gone or holds nothing yet. */
  frameOf(parent: FrameCtx | null, k: number): Promise<{ session: string; frameId: string } | null>;
}

/** API functions whose first argument is a ref. */
const REF_FIRST = new Set<InjectedFunctionName>(['pointFor', 'clickDom', 'focus', 'fill', 'rectFor', 'elementFor', 'selectOptions', 'scrollState', 'elementInfo', 'submitFor', 'secretTarget', 'maskSecret']);
/** API functions taking options with a ref. */
const REF_OPTION = new Set<InjectedFunctionName>(['readText', 'similar']);
const FRAME_REF = /^f([1-9][0-9]{0,4}):(e[1-9][0-9]{0,8})$/;
const REF_IN_TEXT = /\[ref=((?:f[0-9]+:)?e[0-9]+)\]/g;
/** How deep frames inside frames are followed (a page could nest them without end). */
const MAX_DEPTH = 4;

/** A frame number's frame, its script's prefix there, and the world (so the document) its refs were handed out in. */
interface Entry { ctx: FrameCtx; prefix: string; world: number }

export class CrossFrames {
  private entries = new Map<number, Entry>();
  private numbers = new Map<string, number>();

  constructor(private host: FrameHost) {}

  /** A new top document: its script numbers frames from 1 again. */
  reset() {
    this.entries.clear();
    this.numbers.clear();
  }

  private async ctxFor(parent: FrameCtx | null, k: number): Promise<FrameCtx | null> {
    const f = await this.host.frameOf(parent, k).catch(() => null);
    if (!f) return null;
    return { key: `${f.session}|${f.frameId}`, session: f.session, frameId: f.frameId, parent, ownerK: k };
  }

  /**
   * The tab-wide name of a ref a frame's script handed out in its current document. A frame that loads a new
   * document gets a new number, so a ref from its old page never names an element of the new one.
   */
  private async outerRef(ctx: FrameCtx, inner: string): Promise<string> {
    const m = /^(?:f([0-9]+):)?(e[0-9]+)$/.exec(inner);
    if (!m) return inner;
    const prefix = m[1] ? `f${m[1]}:` : '';
    const world = await this.host.worldOf(ctx);
    const key = `${ctx.key}#${world}#${prefix}`;
    let k = this.numbers.get(key);
    if (k === undefined) {
      k = !ctx.parent && !prefix && !this.entries.has(ctx.ownerK) ? ctx.ownerK : await this.host.callIn(null, 'reserveFrame', []);
      this.numbers.set(key, k);
      this.entries.set(k, { ctx, prefix, world });
    }
    return `f${k}:${m[2]}`;
  }

  private async renameRefs(ctx: FrameCtx, text: string): Promise<string> {
    const names = new Map<string, string>();
    for (const m of text.matchAll(REF_IN_TEXT)) if (!names.has(m[1])) names.set(m[1], await this.outerRef(ctx, m[1]));
    return text.replace(REF_IN_TEXT, (_, r: string) => `[ref=${names.get(r)}]`);
  }

  /** Where the frame's viewport starts in the top viewport (its <iframe> scrolled into view on the way down). */
  private async offset(ctx: FrameCtx | null): Promise<{ x: number; y: number }> {
    if (!ctx) return { x: 0, y: 0 };
    const above = await this.offset(ctx.parent);
    const box = await this.host.callIn(ctx.parent, 'frameBox', [ctx.ownerK]);
    return { x: above.x + box.x, y: above.y + box.y };
  }

  /**
   * A point in a frame's viewport, in the top viewport: each <iframe> on the way up is scrolled into view and
   * must be what a pointer hits there (a parent's overlay over the frame would take the click instead).
   */
  private async pointToTop(ctx: FrameCtx | null, p: { x: number; y: number }): Promise<{ x: number; y: number }> {
    if (!ctx) return p;
    const box = await this.host.callIn(ctx.parent, 'frameBox', [ctx.ownerK]);
    const q = { x: p.x + box.x, y: p.y + box.y };
    await this.host.callIn(ctx.parent, 'frameHit', [ctx.ownerK, q.x, q.y]);
    return this.pointToTop(ctx.parent, q);
  }

  private route(ref: unknown): { entry: Entry; inner: string } | null {
    const m = typeof ref === 'string' ? FRAME_REF.exec(ref) : null;
    const entry = m ? this.entries.get(Number(m[1])) : undefined;
    return entry ? { entry, inner: entry.prefix + m![2] } : null;
  }

  /** The frame and the frame's own name for a `fK:eN` ref of a frame reached through its session; null for the top script's refs. */
  target(ref: string): { ctx: FrameCtx; inner: string; world: number } | null {
    const r = this.route(ref);
    return r ? { ctx: r.entry.ctx, inner: r.inner, world: r.entry.world } : null;
  }

  /** Tab.call: the API function on the right world, with frames' readings and matches joined in. */
  async call<K extends InjectedFunctionName>(fn: K, args: unknown[]): Promise<ReturnType<InjectedApi[K]>> {
    const refArg = REF_FIRST.has(fn) ? args[0] : REF_OPTION.has(fn) ? (args[0] as { ref?: unknown } | undefined)?.ref : undefined;
    const routed = this.route(refArg);
    if (routed) return this.callOnFrameRef(fn, args, routed.entry, routed.inner);
    switch (fn) {
      case 'snapshot':
        return (await this.snapshotIn(null, args[0] as Parameters<InjectedApi['snapshot']>[0], 0)) as ReturnType<InjectedApi[K]>;
      case 'readText':
        if ((args[0] as { ref?: string } | undefined)?.ref) break;
        return (await this.readTextIn(null, args[0] as Parameters<InjectedApi['readText']>[0], 0)) as ReturnType<InjectedApi[K]>;
      case 'visibleHtml':
        return (await this.htmlIn(null, args[0] as Parameters<InjectedApi['visibleHtml']>[0], 0)) as ReturnType<InjectedApi[K]>;
      case 'findText':
        return (await this.findTextIn(null, args[0] as Parameters<InjectedApi['findText']>[0], 0)) as ReturnType<InjectedApi[K]>;
      case 'query':
        return (await this.queryIn(null, args[0] as Parameters<InjectedApi['query']>[0], 0)) as ReturnType<InjectedApi[K]>;
    }
    return this.host.callIn(null, fn, args);
  }

  private async callOnFrameRef<K extends InjectedFunctionName>(fn: K, args: unknown[], entry: Entry, inner: string): Promise<ReturnType<InjectedApi[K]>> {
    const ctx = entry.ctx;
    const rest = REF_FIRST.has(fn) ? [inner, ...args.slice(1)] : [{ ...(args[0] as object), ref: inner }, ...args.slice(1)];
    if (fn === 'pointFor') {
      const p = await this.host.callIn(ctx, 'pointFor', rest as [string], entry.world);
      return (await this.pointToTop(ctx, p)) as ReturnType<InjectedApi[K]>;
    }
    if (fn === 'rectFor') {
      // The frame's document coordinates, to the top page's: out of the frame's scroll, into the top viewport, plus the top scroll.
      const r = await this.host.callIn(ctx, 'rectFor', rest as [string], entry.world);
      const inFrame = await this.host.callIn(ctx, 'scrollState', []);
      const off = await this.offset(ctx);
      const top = await this.host.callIn(null, 'scrollState', []);
      return { ...r, x: r.x - inFrame.x + off.x + top.x, y: r.y - inFrame.y + off.y + top.y } as ReturnType<InjectedApi[K]>;
    }
    const value = await this.host.callIn(ctx, fn, rest, entry.world);
    if (fn === 'submitFor' && typeof value === 'string') return (await this.outerRef(ctx, value)) as ReturnType<InjectedApi[K]>;
    if (fn === 'similar') {
      const r = value as ReturnType<InjectedApi['similar']>;
      for (const it of r.items) it.ref = await this.outerRef(ctx, it.ref);
    }
    return value;
  }

  /** The frames of a ctx's document that a reading marked, each as its ctx (null when it cannot be reached). */
  private async marked(parent: FrameCtx | null, ks: number[] | undefined, depth: number): Promise<Map<number, FrameCtx | null>> {
    const out = new Map<number, FrameCtx | null>();
    for (const k of ks ?? []) out.set(k, depth < MAX_DEPTH ? await this.ctxFor(parent, k) : null);
    return out;
  }

  private async snapshotIn(ctx: FrameCtx | null, opts: Parameters<InjectedApi['snapshot']>[0], depth: number): Promise<ReturnType<InjectedApi['snapshot']>> {
    const mark = newMark();
    const snap = await this.host.callIn(ctx, 'snapshot', [{ ...opts, frameMark: mark }]);
    let text = ctx ? await this.renameRefs(ctx, snap.text) : snap.text;
    let refCount = snap.refCount;
    const skipped = [...snap.skippedFrames];
    const frames = await this.marked(ctx, snap.frames, depth);
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = new RegExp(`${mark}([0-9]+)_`).exec(lines[i]);
      if (!m) continue;
      const child = frames.get(Number(m[1]));
      const inner = child ? await this.snapshotIn(child, opts, depth + 1).catch(() => null) : null;
      if (!inner) {
        skipped.push({ url: urlOfLine(lines[i]) });
        lines[i] = lines[i].replace(m[0], '(cross-origin)');
        continue;
      }
      refCount += inner.refCount;
      skipped.push(...inner.skippedFrames);
      const indent = /^\s*/.exec(lines[i])![0] + '  ';
      const body = inner.text ? inner.text.split('\n').map((l) => indent + l) : [];
      lines[i] = lines[i].replace(' ' + m[0], body.length ? ':' : '').replace(m[0], '');
      lines.splice(i + 1, 0, ...body);
      i += body.length;
    }
    text = lines.join('\n');
    return { ...snap, text, refCount, skippedFrames: skipped, frames: undefined };
  }

  private async readTextIn(ctx: FrameCtx | null, opts: Parameters<InjectedApi['readText']>[0], depth: number): Promise<ReturnType<InjectedApi['readText']>> {
    const mark = newMark();
    const r = await this.host.callIn(ctx, 'readText', [{ ...opts, frameMark: mark }]);
    const frames = await this.marked(ctx, r.frames, depth);
    const parts: string[] = [];
    for (const line of r.text.split('\n')) {
      const m = new RegExp(`^${mark}([0-9]+)_$`).exec(line);
      if (!m) {
        parts.push(line);
        continue;
      }
      const child = frames.get(Number(m[1]));
      const inner = child ? await this.readTextIn(child, opts, depth + 1).catch(() => null) : null;
      if (inner?.text) parts.push(inner.text);
    }
    return { ...r, text: parts.join('\n'), frames: undefined };
  }

  private async htmlIn(ctx: FrameCtx | null, opts: Parameters<InjectedApi['visibleHtml']>[0], depth: number): Promise<ReturnType<InjectedApi['visibleHtml']>> {
    const mark = newMark();
    const r = await this.host.callIn(ctx, 'visibleHtml', [{ ...opts, frameMark: mark, bodyOnly: !!ctx }]);
    const frames = await this.marked(ctx, r.frames, depth);
    const inners = new Map<string, string>();
    for (const [k, child] of frames) {
      const inner = child ? await this.htmlIn(child, opts, depth + 1).catch(() => null) : null;
      inners.set(String(k), inner?.html ?? '');
    }
    const html = r.html.replace(new RegExp(`${mark}([0-9]+)_`, 'g'), (_, k: string) => inners.get(k) ?? '');
    return { ...r, html, frames: undefined };
  }

  /** The reachable frames of a ctx's document, in document order. */
  private async reachable(ctx: FrameCtx | null, includeHidden: boolean | undefined, depth: number): Promise<FrameCtx[]> {
    if (depth >= MAX_DEPTH) return [];
    const list = await this.host.callIn(ctx, 'crossFrames', [{ includeHidden }]).catch(() => []);
    const out: FrameCtx[] = [];
    for (const f of list) {
      const c = await this.ctxFor(ctx, f.k);
      if (c) out.push(c);
    }
    return out;
  }

  private async findTextIn(ctx: FrameCtx | null, opts: Parameters<InjectedApi['findText']>[0], depth: number): Promise<{ matches: FindTextMatch[]; total?: number }> {
    const r = await this.host.callIn(ctx, 'findText', [opts]);
    const matches = ctx ? await Promise.all(r.matches.map(async (m) => ({ ...m, ref: await this.outerRef(ctx, m.ref) }))) : r.matches;
    let total = r.total ?? matches.length;
    const limit = Math.max(1, Math.min(100, Math.floor(opts.limit ?? 20)));
    for (const child of await this.reachable(ctx, opts.includeHidden, depth)) {
      const inner = await this.findTextIn(child, { ...opts, limit: Math.max(1, limit - matches.length) }, depth + 1).catch(() => null);
      if (!inner) continue;
      total += inner.total ?? inner.matches.length;
      matches.push(...inner.matches.slice(0, Math.max(0, limit - matches.length)));
    }
    return { matches, total };
  }

  private async queryIn(ctx: FrameCtx | null, opts: Parameters<InjectedApi['query']>[0], depth: number): Promise<ReturnType<InjectedApi['query']>> {
    // A bad selector fails in the page itself; in a frame (where a scope may match nothing) a failure only means no matches there.
    const r = await this.host.callIn(ctx, 'query', [opts]);
    const matches: QueryMatch[] = ctx ? await Promise.all(r.matches.map(async (m) => ({ ...m, ref: await this.outerRef(ctx, m.ref) }))) : r.matches;
    let total = r.total;
    const limit = opts.limit ?? Infinity;
    for (const child of await this.reachable(ctx, opts.includeHidden, depth)) {
      const inner = await this.queryIn(child, opts, depth + 1).catch(() => null);
      if (!inner) continue;
      total += inner.total;
      matches.push(...inner.matches.slice(0, Math.max(0, limit - matches.length)));
    }
    return { matches, total };
  }
}

function newMark(): string {
  return `xf${randomBytes(8).toString('hex')}x`;
}

function urlOfLine(line: string): string {
  const m = /iframe ("(?:[^"\\]|\\.)*")/.exec(line);
  try {
    return m ? String(JSON.parse(m[1])) : '';
  } catch {
    return '';
  }
}
