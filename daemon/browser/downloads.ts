/**
 * Page downloads, the CDP side: Chromium writes each download under its guid into a staging dir of this
 * browser; once complete it moves into the user's files (FileStore.addFile: one copy of the same bytes, a
 * free safe name). A download past the admin's cap is cancelled and its bytes removed. What became of each
 * is a line in the log of the tab that started it.
 */
import { EventEmitter } from 'node:events';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CdpConnection, Disposable, EventParams } from '../cdp/connection.js';
import type { AddedFile } from '../../storage/files.js';
import type { LogEntry, LogKind } from './tab-log.js';

/** How many bytes a download may arrive between two looks at the user's storage quota. */
const QUOTA_STEP = 1024 * 1024;
const QUOTA_REASON = 'it would pass your storage quota (--max-storage-mb-per-user), so it was cancelled and its bytes removed; delete files you no longer need and download it again';

/** Chromium's download guids: a UUID. Anything else never becomes a path. */
const GUID = /^[0-9a-fA-F-]{36}$/;

/** Where a download came from: the tab whose frame started it (if it is one of ours) and its browser context. */
export interface DownloadOrigin {
  tab?: { id: string; logEvent(kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>): void };
  browserContextId?: string;
}

export interface DownloadWatcherOptions {
  stagingDir: string;
  /** Larger downloads are cancelled (config downloadMaxBytes). */
  maxBytes: number;
  /**
   * Bytes the user may still store (quotas/storage.ts), the partial downloads on disk already counted. A
   * download that would pass it is cancelled while it arrives and its bytes removed ('over_quota').
   */
  room?: () => number;
  /** Moves a finished download into the user's files. */
  store(name: string, stagedPath: string): Promise<AddedFile>;
  origin(frameId: string): DownloadOrigin;
  log: Logger;
}

export type DownloadState = 'stored' | 'canceled' | 'too_large' | 'over_quota' | 'failed';

/** What became of one download ('settled' event). */
export interface DownloadOutcome {
  guid: string;
  url: string;
  suggestedName: string;
  state: DownloadState;
  tab?: string;
  file?: AddedFile;
  reason?: string;
}

/** A download under way, as browser_downloads shows it. */
export interface DownloadInProgress {
  name: string;
  url: string;
  receivedBytes: number;
  totalBytes: number;
  tab?: string;
}

interface Active {
  guid: string;
  url: string;
  suggestedName: string;
  origin: DownloadOrigin;
  receivedBytes: number;
  totalBytes: number;
  /** Set once we asked Chromium to cancel it for its size. */
  tooLarge?: boolean;
  /** Set once we asked Chromium to cancel it for the user's storage quota. */
  overQuota?: boolean;
  /** receivedBytes at which the quota is looked at next (a disk count: not at every progress event). */
  quotaCheckAt?: number;
}

export class DownloadWatcher extends EventEmitter {
  private active = new Map<string, Active>();
  private subs: Disposable[] = [];

  constructor(private conn: CdpConnection, private opts: DownloadWatcherOptions) {
    super();
    // Whatever is in the staging dir when the browser starts was left by one that died mid-download.
    for (const n of readdirSync(opts.stagingDir)) rmSync(join(opts.stagingDir, n), { force: true, recursive: true });
    this.subs.push(conn.on('Browser.downloadWillBegin', '', (p) => this.onBegin(p)));
    this.subs.push(conn.on('Browser.downloadProgress', '', (p) => void this.onProgress(p)));
  }

  /** Downloads of a browser context (the default one without an id) go to the staging dir, named by guid. */
  async enable(browserContextId?: string): Promise<void> {
    await this.conn.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      downloadPath: this.opts.stagingDir,
      eventsEnabled: true,
      ...(browserContextId ? { browserContextId } : {}),
    });
  }

  /** Where Chromium writes this browser's downloads (a CDP session client's download setting is rewritten to it). */
  get stagingDir(): string {
    return this.opts.stagingDir;
  }

  inProgress(): DownloadInProgress[] {
    return [...this.active.values()].map((a) => ({ name: a.suggestedName, url: a.url, receivedBytes: a.receivedBytes, totalBytes: a.totalBytes, tab: a.origin.tab?.id }));
  }

  dispose() {
    for (const s of this.subs.splice(0)) s.dispose();
    this.active.clear();
  }

  private onBegin(p: EventParams<'Browser.downloadWillBegin'>) {
    if (!GUID.test(p.guid)) return;
    this.active.set(p.guid, { guid: p.guid, url: p.url, suggestedName: p.suggestedFilename, origin: this.opts.origin(p.frameId), receivedBytes: 0, totalBytes: 0 });
  }

  private async onProgress(p: EventParams<'Browser.downloadProgress'>) {
    const a = this.active.get(p.guid);
    if (!a) return;
    a.receivedBytes = p.receivedBytes;
    a.totalBytes = p.totalBytes;
    if (p.state === 'inProgress') {
      if (!a.tooLarge && Math.max(p.totalBytes, p.receivedBytes) > this.opts.maxBytes) {
        a.tooLarge = true;
        await this.conn.sendMayFail('Browser.cancelDownload', { guid: p.guid, ...(a.origin.browserContextId ? { browserContextId: a.origin.browserContextId } : {}) });
      } else if (!a.tooLarge && !a.overQuota && this.passesQuota(a)) {
        a.overQuota = true;
        await this.conn.sendMayFail('Browser.cancelDownload', { guid: p.guid, ...(a.origin.browserContextId ? { browserContextId: a.origin.browserContextId } : {}) });
      }
      return;
    }
    this.active.delete(p.guid);
    const staged = join(this.opts.stagingDir, p.guid);
    if (p.state === 'canceled') {
      this.removeStaged(p.guid);
      return this.settle(a, a.tooLarge ? { state: 'too_large', reason: this.capReason() } : a.overQuota ? { state: 'over_quota', reason: QUOTA_REASON } : { state: 'canceled', reason: 'cancelled' });
    }
    // completed: it may have finished before our cancel reached Chromium.
    let size: number;
    try {
      size = statSync(staged).size;
    } catch {
      return this.settle(a, { state: 'failed', reason: 'the finished file was not where the browser was told to put it' });
    }
    if (size > this.opts.maxBytes) {
      this.removeStaged(p.guid);
      return this.settle(a, { state: 'too_large', reason: this.capReason() });
    }
    try {
      const file = await this.opts.store(a.suggestedName || lastSegment(a.url), staged);
      this.settle(a, { state: 'stored', file });
    } catch (e) {
      this.removeStaged(p.guid);
      // The store asks the quota too: a download that finished before our cancel arrived is refused there.
      if ((e as { details?: { quota?: string } }).details?.quota === 'storageBytes') return this.settle(a, { state: 'over_quota', reason: QUOTA_REASON });
      this.opts.log.warn({ err: String(e) }, 'a finished download could not be stored');
      this.settle(a, { state: 'failed', reason: 'it could not be stored in your files' });
    }
  }

  /**
   * True when the download would pass the user's storage quota: with what it has left to arrive (when the
   * server said its size), or already. Looked at on its first progress and then every QUOTA_STEP bytes.
   */
  private passesQuota(a: Active): boolean {
    if (!this.opts.room || a.receivedBytes < (a.quotaCheckAt ?? 0)) return false;
    a.quotaCheckAt = a.receivedBytes + QUOTA_STEP;
    const room = this.opts.room();
    return room <= 0 || (a.totalBytes > 0 && a.totalBytes - a.receivedBytes > room);
  }

  private capReason(): string {
    const mb = this.opts.maxBytes / (1024 * 1024);
    return `larger than the download limit (${Number.isInteger(mb) ? `${mb} MB` : `${this.opts.maxBytes} bytes`}), so it was cancelled`;
  }

  /** The staged bytes, finished (guid) or partial (guid.crdownload), are gone once a download ends unstored. */
  private removeStaged(guid: string) {
    for (const n of [guid, `${guid}.crdownload`]) rmSync(join(this.opts.stagingDir, n), { force: true });
  }

  private settle(a: Active, r: Pick<DownloadOutcome, 'state' | 'file' | 'reason'>) {
    const outcome: DownloadOutcome = { guid: a.guid, url: a.url, suggestedName: a.suggestedName, tab: a.origin.tab?.id, ...r };
    a.origin.tab?.logEvent('download', { url: a.url, detail: describe(outcome) });
    this.emit('settled', outcome);
  }
}

function lastSegment(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    return '';
  }
}

/** The tab log's line: the stored name, or why there is none. */
export function describe(o: DownloadOutcome): string {
  if (o.state === 'stored' && o.file) {
    const f = o.file;
    return f.existing
      ? `same bytes already in your files as "${f.name}" (${f.size} bytes); kept one copy`
      : `stored in your files as "${f.name}" (${f.size} bytes, ${f.mimeType})`;
  }
  return `not stored: ${o.reason ?? o.state}`;
}
