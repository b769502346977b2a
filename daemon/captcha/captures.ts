/**
 * Captures and misses, per daemon. A capture is a one-use permission to act on what one image showed: bound to
 * a user, a tab, a frame (and that frame's document) and the container's box, valid two minutes or until the
 * frame navigates or goes away, whichever comes first. It lives in memory only: a restart ends every capture,
 * which is what an image of a page that is gone deserves.
 *
 * Misses are counted per tab and main-frame document: an act after which the container still shows is a miss,
 * and the third on one page means a person should take over.
 */
import { randomBytes } from 'node:crypto';
import { DisposableStore, type CdpConnection } from '../cdp/connection.js';
import { detachSession, type FrameInfo } from './frames.js';
import type { Box } from './geometry.js';

export const CAPTURE_TTL_MS = 2 * 60 * 1000;
export const MISSES_BEFORE_HANDOFF = 3;
/** Live captures one user may hold; past it the oldest goes (each may hold a CDP session open). */
const MAX_LIVE_PER_USER = 16;

export const CAPTURE_ID = /^cap_[0-9a-f]{16}$/;

export interface Capture {
  id: string;
  user: string;
  tabId: string;
  /** The tab's own session: a capture of a closed tab is gone with it. */
  tabSession: string;
  frame: FrameInfo;
  /** The frame and the frames above it up to the main frame (offsets are measured through them again at act time). */
  frames: FrameInfo[];
  selector: string;
  /** The part of the container the image shows, in the tab's viewport when captured (CSS px). */
  box: Box;
  /** The container's whole border box size then: a container of another size later is another challenge. */
  container: { width: number; height: number };
  /** Where that part starts inside the container's border box (non-zero when the container was cut by the viewport). */
  offset: { x: number; y: number };
  /** Sessions attached for this capture (its frame's renderer and those of the frames above it), detached when it ends. */
  sessions: string[];
  /** The image: its pixel size, and pixels per CSS px on each axis. */
  image: { width: number; height: number; scaleX: number; scaleY: number };
  expiresAt: number;
  /** Why it can no longer be used, once it cannot: expiry, navigation or the frame going away. */
  ended?: string;
}

export type Lookup = { ok: true; capture: Capture } | { ok: false; why: 'unknown' | 'used' | 'ended'; detail?: string };

class CaptchaState {
  private live = new Map<string, { capture: Capture; watch: DisposableStore; timer: NodeJS.Timeout; conn: CdpConnection }>();
  /** Ids that were used or ended, so a replay is told what happened (bounded: the oldest are forgotten). */
  private spent = new Map<string, string>();
  private misses = new Map<string, { page: string; count: number }>();

  /**
   * Registers a capture and starts watching its frame: a navigation of that frame, its removal, or the end of
   * the session that runs it ends the capture at once; the timer ends it at two minutes.
   */
  add(conn: CdpConnection, c: Omit<Capture, 'id' | 'expiresAt'>, now = Date.now()): Capture {
    const capture: Capture = { ...c, id: `cap_${randomBytes(8).toString('hex')}`, expiresAt: now + CAPTURE_TTL_MS };
    const watch = new DisposableStore();
    const end = (why: string) => this.end(capture.id, why);
    const f = capture.frame;
    watch.add(conn.on('Page.frameNavigated', f.session, ({ frame }) => {
      if (frame.id === f.frameId) end('its frame navigated');
    }));
    watch.add(conn.on('Page.frameDetached', f.session, ({ frameId }) => {
      if (frameId === f.frameId) end('its frame was removed');
    }));
    if (f.session !== capture.tabSession) {
      // The parent navigating or dropping the <iframe> shows on the parent's renderer, not the frame's.
      watch.add(conn.on('Page.frameDetached', capture.tabSession, ({ frameId }) => {
        if (frameId === f.frameId) end('its frame was removed');
      }));
      watch.add(conn.onSessionGone(f.session, () => end('its frame went away')));
    }
    const main = capture.frames.at(-1)?.frameId;
    if (f.frameId !== main) {
      // A new main document takes every frame of the old one with it.
      watch.add(conn.on('Page.frameNavigated', capture.tabSession, ({ frame }) => {
        if (!frame.parentId && frame.id === main) end('the page navigated');
      }));
    }
    watch.add(conn.onSessionGone(capture.tabSession, () => end('its tab went away')));
    const timer = setTimeout(() => end('it expired (captures are valid for 2 minutes)'), CAPTURE_TTL_MS);
    timer.unref();
    this.live.set(capture.id, { capture, watch, timer, conn });
    this.trim(capture.user);
    return capture;
  }

  /** The capture if it can still be used; nothing is consumed. */
  peek(id: string, user: string, now = Date.now()): Lookup {
    const l = this.live.get(id);
    if (!l || l.capture.user !== user) {
      const spent = this.spent.get(`${user}:${id}`);
      return spent ? { ok: false, why: spent === 'used' ? 'used' : 'ended', detail: spent } : { ok: false, why: 'unknown' };
    }
    if (now >= l.capture.expiresAt) {
      this.end(id, 'it expired (captures are valid for 2 minutes)');
      return this.peek(id, user, now);
    }
    return { ok: true, capture: l.capture };
  }

  /**
   * Uses the capture up: from now on its id answers not_found. The sessions it holds stay attached for the act
   * that used it (input into its frame, the second look); the returned function detaches them.
   */
  consume(id: string): () => void {
    const l = this.live.get(id);
    this.end(id, 'used', false);
    return l ? () => this.releaseSession(l.conn, l.capture) : () => undefined;
  }

  private end(id: string, why: string, release = true) {
    const l = this.live.get(id);
    if (!l) return;
    this.live.delete(id);
    clearTimeout(l.timer);
    l.watch.dispose();
    l.capture.ended = why;
    this.spent.set(`${l.capture.user}:${id}`, why);
    if (this.spent.size > 4096) this.spent.delete(this.spent.keys().next().value!);
    if (release) this.releaseSession(l.conn, l.capture);
  }

  /** Detaches the sessions a capture held: each inspect attaches its own, so no other capture shares them. */
  private releaseSession(conn: CdpConnection, c: Capture) {
    for (const s of c.sessions) if (s !== c.tabSession) void detachSession(conn, s);
  }

  private trim(user: string) {
    const mine = [...this.live.values()].filter((l) => l.capture.user === user);
    for (const l of mine.slice(0, Math.max(0, mine.length - MAX_LIVE_PER_USER))) this.end(l.capture.id, 'a newer capture replaced it (16 at most at once)');
  }

  /** Misses so far on this tab's page; a new main document starts again at zero. */
  missesOn(user: string, tabId: string, page: string): number {
    const m = this.misses.get(`${user}:${tabId}`);
    return m && m.page === page ? m.count : 0;
  }

  addMiss(user: string, tabId: string, page: string): number {
    const key = `${user}:${tabId}`;
    const count = this.missesOn(user, tabId, page) + 1;
    this.misses.set(key, { page, count });
    return count;
  }
}

const states = new WeakMap<object, CaptchaState>();

/** The captcha state of one daemon (its env): daemons in one process (tests) never share captures. */
export function captchaState(owner: object): CaptchaState {
  let s = states.get(owner);
  if (!s) states.set(owner, (s = new CaptchaState()));
  return s;
}

export type { CaptchaState };
