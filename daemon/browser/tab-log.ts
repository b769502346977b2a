/** Per-tab records a person or agent can inspect: the write log and recent network responses. Bounded rings. */

export type LogKind = 'write_sent' | 'write_blocked' | 'navigation_blocked' | 'route_blocked' | 'ads_blocked' | 'http_error' | 'console_error' | 'dialog' | 'popup' | 'crash' | 'download';

export interface LogEntry {
  at: string;
  kind: LogKind;
  method?: string;
  url?: string;
  status?: number;
  detail?: string;
  /** ads_blocked: how many requests of this document were failed as ads or trackers (one entry a document). */
  count?: number;
}

export interface NetworkEntry {
  at: string;
  url: string;
  method: string;
  status: number;
  type: string;
  mimeType?: string;
  failed?: string;
}

export class Ring<T> {
  private items: T[] = [];
  private seq = 0;
  constructor(private max: number) {}
  push(item: T) {
    this.items.push(item);
    this.seq++;
    if (this.items.length > this.max) this.items.shift();
  }
  /** How many were ever pushed: lets a caller see what was added during one tool call. */
  get count() {
    return this.seq;
  }
  since(count: number): T[] {
    const n = this.seq - count;
    return n <= 0 ? [] : this.items.slice(-Math.min(n, this.items.length));
  }
  all(): T[] {
    return [...this.items];
  }
}
