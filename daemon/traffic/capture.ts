/**
 * A tab's body capture (browser_capture): a TrafficSink that keeps the request and response bodies of the
 * exchanges whose URL and method match, redacted BEFORE they are kept (one redactor, redact.ts), so what sits
 * in memory is already what any caller may see. It keeps the first `maxBodies` matches and only counts later
 * ones; each body is cut at `maxBytes`. Memory is bounded by maxBodies x 2 bodies x maxBytes (plus headers).
 *
 * At most one capture per tab: a start replaces the running one with its kept bodies; a stop ends it and
 * leaves what it kept readable. It is kept by user and tab id (tab-scoped.ts): it follows the tab when the tab
 * is reopened after a crash or restart, and goes when the tab is closed.
 */
import type { Disposable } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';
import type { Platform } from '../platform.js';
import { TabScoped, type TabScopedItem } from './tab-scoped.js';
import type { Exchange, TrafficSink } from '../browser/traffic-types.js';
import { REDACTED, type TrafficRedactor } from './redact.js';
import { cutUtf8 } from './cut.js';
import { headerValue } from './headers.js';
import { urlMatcher, type UrlMatcher } from '../browser/url-pattern.js';
import { Type, type Static } from '@sinclair/typebox';
import { PageKeyedRecord, PageText } from '../../protocol/output-fields.js';
import type { SameType } from './same-type.js';

export const CAPTURE_LIMITS = {
  maxBodies: { min: 1, max: 200, default: 50 },
  maxBytes: { min: 1, max: 1_048_576, default: 65_536 },
} as const;

export interface CaptureOptions {
  urlPattern: string;
  /** Upper-case HTTP methods; empty or absent: every method. */
  methods?: string[];
  maxBodies: number;
  maxBytes: number;
}

export interface CapturedBody {
  /** The redacted body, cut to maxBytes; base64 when the body is binary. */
  text: string;
  base64: boolean;
  /** Bytes of the whole (redacted) body, before any cut. */
  size: number;
  truncated: boolean;
}

export interface CapturedExchange {
  /** 1 for the first exchange kept, and so on: the order they ended in. */
  seq: number;
  /** When the request started (ISO). */
  at: string;
  method: string;
  url: string;
  /** 0 when no response came (failed, blocked). */
  status: number;
  type: string;
  mimeType?: string;
  failed?: { errorText: string; blockedReason?: string; canceled?: boolean };
  redirectUrl?: string;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody?: CapturedBody;
  responseBody?: CapturedBody;
}

export interface CaptureState {
  urlPattern: string;
  methods: string[];
  maxBodies: number;
  maxBytes: number;
  running: boolean;
  startedAt: string;
  kept: number;
  /** Matches that came after maxBodies were kept: counted, not kept. */
  notKept: number;
}

// ---- the same shapes as results carry them (browser_capture, browser_network{captured: true})

export const CapturedBodySchema = Type.Object({
  text: PageText({ description: 'The redacted body, cut to maxBytes; base64 when the body is binary.' }),
  base64: Type.Boolean(),
  size: Type.Integer({ description: 'Bytes of the whole (redacted) body, before any cut.' }),
  truncated: Type.Boolean(),
});

const Headers = PageKeyedRecord({ description: 'Header name to value, credentials and cookie values redacted.' });

export const CapturedExchangeSchema = Type.Object({
  seq: Type.Integer({ description: '1 for the first exchange kept, and so on, in the order they ended.' }),
  at: Type.String({ description: 'When the request started (ISO).' }),
  method: Type.String(),
  url: PageText(),
  status: Type.Integer({ description: '0 when no response came (failed, blocked).' }),
  type: Type.String({ description: 'Resource type, lower-case: xhr, fetch, document, ...' }),
  mimeType: Type.Optional(PageText({ description: 'As the server sent it.' })),
  failed: Type.Optional(Type.Object({ errorText: Type.String(), blockedReason: Type.Optional(Type.String()), canceled: Type.Optional(Type.Boolean()) })),
  redirectUrl: Type.Optional(PageText()),
  requestHeaders: Headers,
  responseHeaders: Headers,
  requestBody: Type.Optional(CapturedBodySchema),
  responseBody: Type.Optional(CapturedBodySchema),
});

export const CaptureStateSchema = Type.Object({
  urlPattern: Type.String(),
  methods: Type.Array(Type.String(), { description: 'Methods kept; empty: every method.' }),
  maxBodies: Type.Integer(),
  maxBytes: Type.Integer(),
  running: Type.Boolean(),
  startedAt: Type.String({ description: 'ISO time the capture started.' }),
  kept: Type.Integer({ description: 'Exchanges kept.' }),
  notKept: Type.Integer({ description: 'Matches that came after maxBodies were kept: counted, not kept.' }),
});

const sameBody: SameType<Static<typeof CapturedBodySchema>, CapturedBody> = true;
const sameExchange: SameType<Static<typeof CapturedExchangeSchema>, CapturedExchange> = true;
const sameState: SameType<Static<typeof CaptureStateSchema>, CaptureState> = true;
void [sameBody, sameExchange, sameState];

const utf8Fatal = new TextDecoder('utf-8', { fatal: true });

/** A body cut to `max` bytes as a capture keeps it. */
function keptText(text: string, max: number): CapturedBody {
  const c = cutUtf8(text, max);
  return { text: c.text, base64: false, size: c.bytes, truncated: c.cut };
}

export class TabCapture implements TrafficSink, TabScopedItem {
  private readonly matches: UrlMatcher;
  private readonly methods: Set<string>;
  private readonly items: CapturedExchange[] = [];
  private notKept = 0;
  private running = true;
  private readonly startedAt = new Date().toISOString();
  private subscription?: Disposable;

  constructor(readonly options: CaptureOptions, private readonly redactor: TrafficRedactor) {
    this.matches = urlMatcher(options.urlPattern);
    this.methods = new Set((options.methods ?? []).map((m) => m.toUpperCase()));
  }

  private matching(ex: Exchange): boolean {
    return (!this.methods.size || this.methods.has(ex.request.method.toUpperCase())) && this.matches(ex.request.url);
  }

  private get full(): boolean {
    return this.items.length >= this.options.maxBodies;
  }

  /** Bodies are fetched only for exchanges this capture would still keep: later matches cost no body read. */
  wantsBody(ex: Exchange): boolean {
    return this.running && !this.full && !ex.failed && this.matching(ex);
  }

  done(ex: Exchange): void {
    if (!this.running || !this.matching(ex)) return;
    // Checked again here: bodies are fetched asynchronously, so two exchanges may have asked for the last slot.
    if (this.full) {
      this.notKept++;
      return;
    }
    this.items.push(this.keep(ex));
  }

  /** The exchange as kept: every value that could carry a credential goes through the redactor first. */
  private keep(ex: Exchange): CapturedExchange {
    const r = this.redactor;
    const reqType = headerValue(ex.request.headers, 'content-type');
    const resType = ex.response ? headerValue(ex.response.headers, 'content-type') ?? ex.response.mimeType : undefined;
    return {
      seq: this.items.length + 1,
      at: new Date(ex.request.startedAt).toISOString(),
      method: ex.request.method,
      url: r.url(ex.request.url),
      status: ex.response?.status ?? 0,
      type: ex.resourceType,
      ...(ex.response?.mimeType ? { mimeType: ex.response.mimeType } : {}),
      ...(ex.failed ? { failed: { ...ex.failed, errorText: r.text(ex.failed.errorText) } } : {}),
      ...(ex.redirectUrl ? { redirectUrl: r.url(ex.redirectUrl) } : {}),
      requestHeaders: r.headers(ex.request.headers),
      responseHeaders: ex.response ? r.headers(ex.response.headers) : {},
      ...(ex.request.postData !== undefined ? { requestBody: this.body(ex.request.postData, false, reqType) } : {}),
      ...(ex.body ? { responseBody: this.body(ex.body.text, ex.body.base64, resType) } : {}),
    };
  }

  /**
   * A body redacted, then cut (redacting first: a JSON body cut before redaction would no longer parse, and its
   * secret keys would slip through as plain text). Binary that is really UTF-8 text is treated as text; true
   * binary is kept as base64 unless it holds one of the user's secrets, then it is not kept at all.
   */
  private body(raw: string, base64: boolean, contentType: string | undefined): CapturedBody {
    const max = this.options.maxBytes;
    if (base64) {
      const bytes = Buffer.from(raw, 'base64');
      let text: string | undefined;
      try {
        text = utf8Fatal.decode(bytes);
      } catch {
        text = undefined;
      }
      if (text === undefined) {
        if (this.redactor.text(bytes.toString('latin1')) !== bytes.toString('latin1')) return { text: REDACTED, base64: false, size: bytes.length, truncated: false };
        return { text: bytes.subarray(0, max).toString('base64'), base64: true, size: bytes.length, truncated: bytes.length > max };
      }
      raw = text;
    }
    return keptText(this.redactor.body(raw, contentType), max);
  }

  /** Still capturing: follows its tab when the tab is reopened after a crash or restart. */
  get live(): boolean {
    return this.running;
  }

  /** Starts following the tab's traffic (again, on a tab reopened under the same id). */
  follow(tab: Tab) {
    this.subscription?.dispose();
    this.subscription = tab.traffic.subscribe(this);
  }

  /** Its tab is gone or a new capture replaces it: nothing more is kept, and what was kept goes. */
  drop() {
    this.stop();
    this.items.length = 0;
  }

  /** Stops keeping; what was kept stays readable. */
  stop() {
    this.running = false;
    this.subscription?.dispose();
    this.subscription = undefined;
  }

  /** Kept exchanges, oldest first. */
  list(): CapturedExchange[] {
    return [...this.items];
  }

  state(): CaptureState {
    const o = this.options;
    return { urlPattern: o.urlPattern, methods: [...this.methods], maxBodies: o.maxBodies, maxBytes: o.maxBytes, running: this.running, startedAt: this.startedAt, kept: this.items.length, notKept: this.notKept };
  }
}

/** One capture per tab, per daemon (tests run several daemons in one process). */
const perDaemon = new WeakMap<Platform, TabScoped<TabCapture>>();

function captures(env: Platform): TabScoped<TabCapture> {
  let c = perDaemon.get(env);
  if (!c) perDaemon.set(env, (c = new TabScoped<TabCapture>(env)));
  return c;
}

/** Starts a capture on the user's tab, replacing (and dropping) the one before. */
export async function startCapture(env: Platform, user: string, tab: Tab, options: CaptureOptions, redactor: TrafficRedactor): Promise<TabCapture> {
  const capture = new TabCapture(options, redactor);
  await captures(env).set(user, tab.id, capture);
  capture.follow(tab);
  return capture;
}

export function captureOf(env: Platform, user: string, tab: string): TabCapture | undefined {
  return captures(env).get(user, tab);
}
