/**
 * One screencast per watched tab, shared by every viewer of it: Chromium encodes each frame once, whoever
 * watches. It starts with the first viewer and stops when the last one leaves, so an unwatched tab costs
 * nothing. Frames are acknowledged as they arrive (Chromium sends the next one only after an ack).
 */
import { DisposableStore, type CdpConnection } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';

export interface Frame {
  /** JPEG, base64. */
  data: string;
  /** The page area the frame shows, in CSS pixels: input coordinates are scaled to this. */
  width: number;
  height: number;
}

export interface FrameSink {
  frame(f: Frame): void;
  /** The tab went away (closed, crashed, its browser stopped): no more frames come. */
  gone(reason: string): void;
}

const SETTINGS = { format: 'jpeg', quality: 70, maxWidth: 1600, maxHeight: 1200, everyNthFrame: 1 } as const;

export class TabScreencast {
  private sinks = new Set<FrameSink>();
  private disposables = new DisposableStore();
  /** The latest frame, for a viewer who joins while the page is still (Chromium sends frames only on change). */
  last?: Frame;
  ended = false;

  constructor(
    private conn: CdpConnection,
    readonly tab: Tab,
    private onEmpty: (cast: TabScreencast) => void,
  ) {}

  async add(sink: FrameSink): Promise<void> {
    if (this.ended) return sink.gone('the tab went away');
    this.sinks.add(sink);
    if (this.last) sink.frame(this.last);
    if (this.sinks.size === 1) await this.start();
  }

  remove(sink: FrameSink) {
    if (!this.sinks.delete(sink) || this.sinks.size) return;
    this.stop();
    void this.conn.sendMayFail('Page.stopScreencast', {}, this.tab.sessionId);
  }

  private async start() {
    const s = this.tab.sessionId;
    this.disposables.add(this.conn.on('Page.screencastFrame', s, (p) => {
      void this.conn.sendMayFail('Page.screencastFrameAck', { sessionId: p.sessionId }, s);
      this.last = { data: p.data, width: p.metadata.deviceWidth ?? 0, height: p.metadata.deviceHeight ?? 0 };
      for (const sink of [...this.sinks]) sink.frame(this.last);
    }));
    this.disposables.add(this.conn.onSessionGone(s, (end) => this.end(end.kind === 'crashed' ? 'the page crashed' : 'the tab went away')));
    await this.conn.send('Page.startScreencast', SETTINGS, s);
  }

  private stop() {
    this.disposables.dispose();
    this.onEmpty(this);
  }

  private end(reason: string) {
    if (this.ended) return;
    this.ended = true;
    const sinks = [...this.sinks];
    this.sinks.clear();
    this.stop();
    for (const sink of sinks) sink.gone(reason);
  }
}

/** The screencasts running now, one per live Tab object (a reopened tab is a new object and a new cast). */
export class ScreencastHub {
  private casts = new Map<Tab, TabScreencast>();

  for(conn: CdpConnection, tab: Tab): TabScreencast {
    let cast = this.casts.get(tab);
    if (!cast || cast.ended) {
      cast = new TabScreencast(conn, tab, (c) => {
        if (this.casts.get(c.tab) === c) this.casts.delete(c.tab);
      });
      this.casts.set(tab, cast);
    }
    return cast;
  }

  get size() {
    return this.casts.size;
  }
}
