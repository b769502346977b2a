/**
 * One connected viewer: which of the link's user's tabs it shows, the frames it gets, and what the person's
 * messages do. Every check that matters is here, on the server: input only on an interactive link, tabs
 * only of the link's user and browser, navigation only through the same tool (and so the same URL and policy
 * checks) an agent uses.
 */
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import type { LinkRecord } from '../live/links.js';
import type { Tab } from '../browser/tab.js';
import type { CdpConnection } from '../cdp/connection.js';
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { parseTabId } from '../../protocol/ids.js';
import { bringToFront, viewportSize } from '../browser/layout.js';
import { INPUT_TYPES, parseViewerMessage, type ViewerMessage } from './messages.js';
import type { Frame, FrameSink, ScreencastHub, TabScreencast } from '../live/screencast.js';

/** What the session sends; `frame` messages may be dropped by the socket when the viewer cannot keep up. */
export type ServerMessage =
  | { type: 'hello'; mode: 'interactive' | 'view'; tab: string }
  | { type: 'frame'; data: string; width: number; height: number }
  | { type: 'tabs'; tabs: { id: string; url: string; mode: string }[]; front?: string }
  | { type: 'error'; code: string; message: string; next?: string };

/** How often the tab strip is compared with the store (tabs opened or closed by pages or agents). */
const TAB_STRIP_MS = 1000;

const MOUSE_TYPE = { down: 'mousePressed', up: 'mouseReleased', move: 'mouseMoved' } as const;

export class ViewerSession implements FrameSink {
  private front?: { tab: Tab; conn: CdpConnection; cast: TabScreencast };
  private releaseBrowser?: () => void;
  private queue: Promise<void> = Promise.resolve();
  private stripTimer?: NodeJS.Timeout;
  private lastStrip = '';
  private closed = false;
  /** The profile of the browser this link shows (undefined: the user's default profile). */
  private readonly profile?: string;

  constructor(
    private env: Platform,
    /** The pipeline's entry: a viewer's navigation runs through the same tool an agent calls. */
    private callTool: CallTool,
    private hub: ScreencastHub,
    readonly link: LinkRecord,
    private send: (m: ServerMessage) => void,
  ) {
    this.profile = parseTabId(link.tabId)?.profile;
  }

  async start() {
    // A watched browser is in use: the idle sweeper must not close it under the person.
    this.releaseBrowser = this.env.pool.hold(this.link.user, this.profile);
    this.send({ type: 'hello', mode: this.link.mode, tab: this.link.tabId });
    this.stripTimer = setInterval(() => this.sendTabs(), TAB_STRIP_MS);
    this.stripTimer.unref();
    await this.run(() => this.show(this.link.tabId));
  }

  /** Messages are handled one at a time, in order: a press must not overtake the move before it. */
  receive(text: string) {
    void this.run(async () => {
      const m = parseViewerMessage(text);
      if (INPUT_TYPES.has(m.type) && this.link.mode !== 'interactive') {
        throw new BrowserdError('refused', 'this live link is view-only: input is not forwarded', { next: "Ask for an interactive link; the account's take-over setting must allow it." });
      }
      await this.handle(m);
    });
  }

  private run(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step).catch((e) => {
      if (this.closed) return;
      const err = toBrowserdError(e);
      if (err.code === 'internal_error') this.env.log.warn({ user: this.link.user, err: e instanceof Error ? e.message : String(e) }, 'live viewer step failed');
      this.send({ type: 'error', code: err.code, message: err.message, ...(err.next ? { next: err.next } : {}) });
    });
    return this.queue;
  }

  /** The user's tabs in the browser this link shows: the only tabs a viewer can see or switch to. */
  private tabsOfBrowser() {
    return this.env.tabs.list(this.link.user).filter((r) => (r.profile ?? undefined) === this.profile);
  }

  private sendTabs() {
    if (this.closed) return;
    const tabs = this.tabsOfBrowser().map((r) => ({ id: r.id, url: r.url, mode: r.mode }));
    const strip = JSON.stringify([tabs, this.front?.tab.id]);
    if (strip === this.lastStrip) return;
    this.lastStrip = strip;
    this.send({ type: 'tabs', tabs, front: this.front?.tab.id });
  }

  private async show(tabId: string) {
    if (!this.tabsOfBrowser().some((r) => r.id === tabId)) {
      throw new BrowserdError('not_found', `no tab ${tabId} in this browser`, { next: 'Pick one of the tabs in the strip.' });
    }
    const inst = await this.env.pool.get(this.link.user, this.profile);
    const tab = await inst.getTab(tabId);
    if (this.closed) return;
    // Only a person who may act brings a tab to the front; a watcher just looks at it.
    if (this.link.mode === 'interactive') await bringToFront(tab);
    // The viewer may have left while the tab came to the front: joining the cast now would keep it running for
    // nobody, forever (close() has already run and found no cast to leave).
    if (this.closed) return;
    const cast = this.hub.for(inst.conn!, tab);
    const old = this.front;
    this.front = { tab, conn: inst.conn!, cast };
    if (old && old.cast !== cast) old.cast.remove(this);
    if (!old || old.cast !== cast) await cast.add(this);
    this.sendTabs();
  }

  frame(f: Frame) {
    this.send({ type: 'frame', data: f.data, width: f.width, height: f.height });
  }

  gone(reason: string) {
    if (this.closed) return;
    this.front = undefined;
    this.send({ type: 'error', code: 'not_found', message: `the tab in front went away (${reason})`, next: 'Pick a tab in the strip.' });
    this.sendTabs();
  }

  private frontTab(): { tab: Tab; conn: CdpConnection; cast: TabScreencast } {
    if (!this.front || this.front.tab.closed) throw new BrowserdError('not_found', 'no tab is in front', { next: 'Pick a tab in the strip.' });
    return this.front;
  }

  /** A point given as fractions of the frame, in the tab's CSS pixels. */
  private async point(x: number, y: number): Promise<{ x: number; y: number }> {
    const { tab, cast } = this.frontTab();
    const size = cast.last?.width ? cast.last : await viewportSize(tab);
    return { x: x * size.width, y: y * size.height };
  }

  private async handle(m: ViewerMessage) {
    const user = this.env.users.get(this.link.user);
    if (!user) throw new BrowserdError('unauthorized', 'the user of this link no longer exists', { next: 'Ask for a new link.' });
    switch (m.type) {
      case 'tab':
        return this.show(m.id);
      case 'mouse': {
        const p = await this.point(m.x, m.y);
        await this.frontTab().tab.send('Input.dispatchMouseEvent', { type: MOUSE_TYPE[m.event], ...p, button: m.button, clickCount: m.clickCount, modifiers: m.modifiers });
        return;
      }
      case 'wheel': {
        const p = await this.point(m.x, m.y);
        await this.frontTab().tab.send('Input.dispatchMouseEvent', { type: 'mouseWheel', ...p, deltaX: m.deltaX, deltaY: m.deltaY, modifiers: m.modifiers });
        return;
      }
      case 'key': {
        // Ctrl, Alt or Meta with a key is a shortcut, not text; Enter types a carriage return like a real keyboard.
        const chord = (m.modifiers & 0b0111) !== 0;
        const text = chord ? undefined : m.key === 'Enter' ? '\r' : m.key.length === 1 ? m.key : undefined;
        const type = m.event === 'up' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown';
        await this.frontTab().tab.send('Input.dispatchKeyEvent', { type, key: m.key, code: m.code, windowsVirtualKeyCode: m.keyCode, modifiers: m.modifiers, ...(text && m.event === 'down' ? { text, unmodifiedText: text } : {}) });
        return;
      }
      case 'paste':
        await this.frontTab().tab.send('Input.insertText', { text: m.text });
        return;
      case 'navigate':
      case 'history': {
        const { tab } = this.frontTab();
        // The same tool an agent calls, so the same URL checks, host policy, allowedDomains and audit apply.
        const r = m.type === 'navigate'
          ? await this.callTool(user, 'browser_navigate', { url: m.url, tab: tab.id }, { via: 'internal' })
          : await this.callTool(user, 'browser_history', { action: m.action, tab: tab.id }, { via: 'internal' });
        if (!r.ok) throw r.error;
        this.sendTabs();
        return;
      }
    }
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.stripTimer);
    this.front?.cast.remove(this);
    this.front = undefined;
    this.releaseBrowser?.();
  }
}
