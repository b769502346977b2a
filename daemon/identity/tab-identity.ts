/**
 * A tab's identity over all its sessions (its own, and each out-of-process frame's). Each session shows the
 * identity when the document it holds is on a site where the identity applies, decided per document:
 * - before a navigation of ours (browser_open, browser_navigate, a reopen): switched and awaited first;
 * - when a frame is adopted, before it runs: from the frame's URL;
 * - when a document request is paused in the write guard (a link, a form, a redirect, a popup's first load):
 *   switched at once, with the paused request's headers rewritten so the server sees what the page will see.
 *   Scripts of that one document may still read the previous user agent in navigator.userAgent(Data) and
 *   hardwareConcurrency when Chromium keeps the renderer (same-site switch); the next document is right.
 * After a settings change every session is switched for the document it holds, so the next load is right.
 */
import type { CdpConnection, DisposableStore } from '../cdp/connection.js';
import { SessionIdentity } from './session.js';
import { rewriteHeaders, type IdentityPlan, type NativeAgent } from './plan.js';

/** One user's identity as a browser applies it (IdentityService.forUser). */
export interface UserIdentity {
  /** The plan for a document at `url`, or undefined where the identity does not apply. */
  plan(url: string, fullVersion: string): Promise<IdentityPlan | undefined>;
  /** Whether input into a document at `url` is humanized (the identity applies and profile.humanize is not false). */
  humanizes(url: string): boolean;
  /** Calls `cb` after every settings change; returns the unsubscribe. */
  onChange(cb: () => void): () => void;
}

/** The browser build the identity is shown on: its full version and what it shows by itself. */
export interface BrowserAgent {
  fullVersion: string;
  native: NativeAgent;
}

interface Tracked {
  state: SessionIdentity;
  /** The frame whose documents this session holds: a page's main frame and an out-of-process frame share their target's id. */
  frameId: string;
  url: string;
}

export interface PausedDocument {
  frameId?: string;
  request: { url: string; headers?: Record<string, string> };
}

/** Subframe addresses kept for the frame's target to come; frames that stay in their parent's process leave theirs. */
const FRAME_URLS_KEPT = 64;

export class TabIdentity {
  private sessions = new Map<string, Tracked>();
  /**
   * A frame's document request is paused in its parent's session, before the frame's own target exists (which
   * then attaches with no URL): its address is kept here, by frame id, for the frame's adoption.
   */
  private frameUrls = new Map<string, string>();

  constructor(private conn: CdpConnection, private user: UserIdentity, private browser: BrowserAgent, disposables: DisposableStore, private onError: (e: unknown) => void) {
    const off = user.onChange(() => {
      for (const t of this.sessions.values()) void this.switchTo(t, t.url, false).catch(onError);
    });
    disposables.add({ dispose: off });
  }

  /** Follows a session whose documents belong to `frameId`; forgotten when `d` is disposed. */
  track(session: string, frameId: string, d?: DisposableStore): void {
    this.sessions.set(session, { state: new SessionIdentity(this.conn, session, this.browser.native), frameId, url: 'about:blank' });
    d?.add({ dispose: () => this.sessions.delete(session) });
  }

  /** Before a navigation of ours to `url`: the session's next document is right once this resolves. */
  async prepare(session: string, url: string): Promise<void> {
    const t = this.sessions.get(session);
    if (t) await this.switchTo(t, url, true);
  }

  /** An out-of-process frame, attached paused: it runs once this resolves, showing what its address calls for. */
  async adoptFrame(session: string, frameId: string, url: string, d: DisposableStore): Promise<void> {
    this.track(session, frameId, d);
    const address = url || this.frameUrls.get(frameId) || 'about:blank';
    this.frameUrls.delete(frameId);
    await this.prepare(session, address);
  }

  /** The plan for a document at `url` (may draw the identity first): with apply(), for a target that must get it before it runs. */
  planFor(url: string): Promise<IdentityPlan | undefined> {
    return this.user.plan(url, this.browser.fullVersion);
  }

  /** The User-Agent, client hints and Accept-Language a request of the document at `url` carries: its plan's, else the browser's own. */
  async headersFor(url: string): Promise<Record<string, string>> {
    return (await this.planFor(url))?.headers ?? this.browser.native.headers;
  }

  /** Sends a planned switch at once, so it precedes whatever is sent on the session next; resolves when answered. */
  async apply(session: string, url: string, plan: IdentityPlan | undefined): Promise<void> {
    const t = this.sessions.get(session);
    if (!t) return;
    t.url = url;
    await t.state.set(plan, true);
  }

  /**
   * The write guard's hook for a paused document request: switches the session when that document is the
   * session's own and needs another identity, and answers the headers the request must go out with then.
   */
  async onDocument(session: string, p: PausedDocument): Promise<{ name: string; value: string }[] | undefined> {
    const t = this.sessions.get(session);
    if (!t || !p.frameId) return undefined;
    try {
      if (p.frameId !== t.frameId) return await this.subframeDocument(t, p.frameId, p);
      const plan = await this.switchTo(t, p.request.url, false);
      if (plan === 'unchanged' || !p.request.headers) return undefined;
      return rewriteHeaders(p.request.headers, plan, this.browser.native);
    } catch (e) {
      this.onError(e);
      return undefined;
    }
  }

  /**
   * A subframe's document, paused in this session: a frame of another site gets a target of its own, which is
   * switched for this address when it attaches; its request goes out with the headers of that address's identity.
   */
  private async subframeDocument(t: Tracked, frameId: string, p: PausedDocument): Promise<{ name: string; value: string }[] | undefined> {
    this.frameUrls.delete(frameId);
    this.frameUrls.set(frameId, p.request.url);
    if (this.frameUrls.size > FRAME_URLS_KEPT) this.frameUrls.delete(this.frameUrls.keys().next().value!);
    const plan = await this.planFor(p.request.url);
    if (plan?.key === t.state.shows || !p.request.headers) return undefined;
    return rewriteHeaders(p.request.headers, plan, this.browser.native);
  }

  humanizes(url: string): boolean {
    return this.user.humanizes(url);
  }

  private async switchTo(t: Tracked, url: string, wait: boolean): Promise<IdentityPlan | undefined | 'unchanged'> {
    t.url = url;
    const plan = await this.user.plan(url, this.browser.fullVersion);
    return (await t.state.set(plan, wait)) ? plan : 'unchanged';
  }
}
