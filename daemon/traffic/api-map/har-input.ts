/**
 * A HAR given in (any tool's HAR 1.2, Chromium's `_resourceType`, `_webSocketMessages`, `_eventSourceMessages`)
 * read into plain entries with RAW values: the builder compares raw values (a CSRF token seen in a response and
 * sent back later) before anything is redacted, and keeps only what has been through the redactor.
 */
export interface HarMessage {
  direction: 'send' | 'receive';
  data: string;
}

export interface ApiEntry {
  /** Position in time order (HAR entries by startedDateTime, ties in file order). */
  index: number;
  kind: 'http' | 'websocket' | 'eventsource';
  method: string;
  url: URL;
  /** Path segments, decoded as they appear (no empty ones). */
  segments: string[];
  query: [string, string][];
  /** Request headers (names as sent), without Cookie, which is read into `cookies`. */
  headers: [string, string][];
  cookies: [string, string][];
  requestBody?: { mimeType: string; text: string };
  status: number;
  responseHeaders: [string, string][];
  /** Set-Cookie pairs of the response. */
  setCookies: [string, string][];
  responseBody?: { mimeType: string; text: string };
  messages: HarMessage[];
}

/** Resource types that are never an API call, whatever they return. */
const NOT_API = new Set(['document', 'script', 'stylesheet', 'image', 'font', 'media', 'manifest', 'texttrack', 'prefetch', 'signedexchange', 'cspviolationreport']);
const API_TYPES = new Set(['xhr', 'fetch', 'websocket', 'eventsource']);
const API_CONTENT = /json|graphql|event-stream/i;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function pairs(list: unknown): [string, string][] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObj).filter((h) => typeof h.name === 'string').map((h) => [h.name as string, str(h.value)]);
}

function headerValue(h: [string, string][], name: string): string | undefined {
  return h.find(([n]) => n.toLowerCase() === name)?.[1];
}

function cookiesOf(header: string | undefined): [string, string][] {
  if (!header) return [];
  return header.split(/;\s*/).filter(Boolean).map((p) => {
    const i = p.indexOf('=');
    return i < 0 ? [p.trim(), ''] : [p.slice(0, i).trim(), p.slice(i + 1)];
  });
}

function setCookiesOf(h: [string, string][], listed: unknown): [string, string][] {
  const out = pairs(listed);
  if (out.length) return out;
  return h
    .filter(([n]) => n.toLowerCase() === 'set-cookie')
    .flatMap(([, v]) => v.split('\n'))
    .map((line) => {
      const first = line.split(';')[0]!;
      const i = first.indexOf('=');
      return (i < 0 ? [first.trim(), ''] : [first.slice(0, i).trim(), first.slice(i + 1)]) as [string, string];
    });
}

/** Body text; base64 content decoded when its type is text-like (JSON is), binary left out. */
function contentText(c: unknown): { mimeType: string; text: string } | undefined {
  if (!isObj(c) || typeof c.text !== 'string' || !c.text) return undefined;
  const mimeType = str(c.mimeType);
  if (c.encoding === 'base64') {
    if (!/json|text|xml|graphql|javascript|form/i.test(mimeType)) return undefined;
    return { mimeType, text: Buffer.from(c.text, 'base64').toString('utf8') };
  }
  return { mimeType, text: c.text };
}

function messagesOf(e: Obj): HarMessage[] {
  const out: HarMessage[] = [];
  if (Array.isArray(e._webSocketMessages)) {
    for (const m of e._webSocketMessages) {
      // opcode 1 is text; binary frames (2) carry base64 we cannot type.
      if (isObj(m) && typeof m.data === 'string' && (m.opcode === undefined || m.opcode === 1)) out.push({ direction: m.type === 'send' ? 'send' : 'receive', data: m.data });
    }
  }
  if (Array.isArray(e._eventSourceMessages)) {
    for (const m of e._eventSourceMessages) if (isObj(m) && typeof m.data === 'string') out.push({ direction: 'receive', data: m.data });
  }
  return out;
}

/** Whether a HAR entry is an API call worth mapping (and of which kind), or a page, script, style or image. */
function kindOf(e: Obj, url: URL, reqHeaders: [string, string][], resHeaders: [string, string][], resMime: string, reqMime: string): ApiEntry['kind'] | undefined {
  const type = str(e._resourceType).toLowerCase();
  const isWs = type === 'websocket' || /^wss?:$/.test(url.protocol) || Array.isArray(e._webSocketMessages) || /websocket/i.test(headerValue(reqHeaders, 'upgrade') ?? '');
  if (isWs) return 'websocket';
  const isSse = type === 'eventsource' || Array.isArray(e._eventSourceMessages) || /text\/event-stream/i.test(resMime || headerValue(resHeaders, 'content-type') || '');
  if (isSse) return 'eventsource';
  if (NOT_API.has(type)) return undefined;
  if (API_TYPES.has(type)) return 'http';
  return API_CONTENT.test(resMime) || API_CONTENT.test(reqMime) || API_CONTENT.test(headerValue(resHeaders, 'content-type') ?? '') ? 'http' : undefined;
}

function hostMatches(url: URL, hosts: readonly string[] | undefined): boolean {
  if (!hosts?.length) return true;
  const h = url.hostname.toLowerCase();
  const hp = url.host.toLowerCase();
  return hosts.some((x) => {
    const want = x.toLowerCase();
    return want === h || want === hp || h.endsWith(`.${want}`);
  });
}

/** The HAR's API entries in time order; anything malformed is skipped rather than failing the whole map. */
export function readHarEntries(har: unknown, hosts?: readonly string[]): { entries: ApiEntry[]; read: number } {
  const log = isObj(har) && isObj(har.log) ? har.log : undefined;
  const raw = log && Array.isArray(log.entries) ? log.entries.filter(isObj) : [];
  const timed = raw.map((e, i) => ({ e, i, t: Date.parse(str(e.startedDateTime)) })).sort((a, b) => (Number.isNaN(a.t) || Number.isNaN(b.t) || a.t === b.t ? a.i - b.i : a.t - b.t));
  const entries: ApiEntry[] = [];
  for (const { e } of timed) {
    const req = isObj(e.request) ? e.request : undefined;
    const res = isObj(e.response) ? e.response : {};
    if (!req) continue;
    let url: URL;
    try {
      url = new URL(str(req.url));
    } catch {
      continue;
    }
    if (!/^(https?|wss?):$/.test(url.protocol) || !hostMatches(url, hosts)) continue;
    const allHeaders = pairs(req.headers);
    const resHeaders = pairs(res.headers);
    const responseBody = contentText(res.content);
    const post = isObj(req.postData) ? req.postData : undefined;
    const requestBody = post && typeof post.text === 'string' && post.text ? { mimeType: str(post.mimeType), text: post.text } : undefined;
    const kind = kindOf(e, url, allHeaders, resHeaders, responseBody?.mimeType ?? str(isObj(res.content) ? res.content.mimeType : ''), requestBody?.mimeType ?? '');
    if (!kind) continue;
    const listedCookies = pairs(req.cookies);
    entries.push({
      index: entries.length,
      kind,
      method: (str(req.method) || 'GET').toUpperCase(),
      url,
      segments: url.pathname.split('/').filter(Boolean).map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      }),
      query: [...url.searchParams.entries()],
      headers: allHeaders.filter(([n]) => n.toLowerCase() !== 'cookie' && !n.startsWith(':')),
      cookies: listedCookies.length ? listedCookies : cookiesOf(headerValue(allHeaders, 'cookie')),
      requestBody,
      status: typeof res.status === 'number' ? res.status : 0,
      responseHeaders: resHeaders,
      setCookies: setCookiesOf(resHeaders, res.cookies),
      responseBody,
      messages: messagesOf(e),
    });
  }
  return { entries, read: raw.length };
}

export function parseJson(text: string | undefined): unknown {
  if (!text || !/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export { headerValue };
