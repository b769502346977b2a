/**
 * The one check every address an agent gives goes through (browser_open, browser_navigate, browser_read):
 * normalise what was typed, allow only http(s) and about:blank, and refuse literal addresses the egress guard
 * would refuse anyway, before a tab is touched. Text that is not an address is a validation_error; an address
 * that may not be opened is always `blocked`, whichever tool was asked.
 *
 * Names are not resolved here: what a name points at is only known when the connection is made, and the
 * egress proxy checks it then (rebinding, redirects, sub-resources). This check only answers early and alike.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { classifyAddress, isBlockedAddress, parseHostAsIp } from './address.js';
import { ALLOW_PRIVATE_NEXT } from './allow-private.js';

const ACCEPTED = 'Accepted: an http(s) URL (https://example.com/page), a host name (example.com means https://example.com/), or host:port (localhost:3000 means http://localhost:3000/).';

// Schemes that reach into the browser itself or the machine (file:, chrome:, devtools:), run code in the
// current page (javascript:), or build a page from the agent's own text (data:, which is how phishing
// lookalikes get drawn). Named so the refusal can say which one it was.
const REFUSED_SCHEMES = new Set([
  'file:', 'chrome:', 'chrome-extension:', 'chrome-untrusted:', 'chrome-search:', 'chrome-error:', 'chrome-native:',
  'devtools:', 'view-source:', 'isolated-app:', 'javascript:', 'data:', 'blob:', 'filesystem:', 'about:',
]);

/** The daemon's private-network settings, the same the egress proxy runs with. */
export interface UrlGuard {
  allowPrivateNetwork: boolean;
  /** Exact "address:port" pairs allowed although private (BROWSERD_ALLOW_TARGETS). */
  allowTargets?: Iterable<string>;
}

const notAnAddress = (why: string): never => {
  throw new BrowserdError('validation_error', `${why}. ${ACCEPTED}`, { next: 'Give a full address such as https://example.com/.' });
};

/**
 * Turns what a person or model typed into a URL: `example.com` -> `https://example.com/`, `localhost:3000` ->
 * `http://localhost:3000/`, `127.0.0.1:8080/x` -> `http://127.0.0.1:8080/x` (loopback and IP literals rarely
 * speak TLS), `//example.com` -> https. An explicit scheme is kept as it is (checkUrl decides about it).
 * Throws validation_error for empty input, text with spaces, and a bare word that looks like a search.
 */
export function normaliseUserUrl(input: string): string {
  const s = String(input ?? '').trim();
  if (!s) notAnAddress('the URL is empty');
  // "scheme:" that is not "host:port": the text after the colon is not just a port number.
  const scheme = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(s);
  if (scheme && !/^\d+(?:[/?#]|$)/.test(scheme[2]!)) {
    try {
      return new URL(s).href;
    } catch {
      return notAnAddress(`not a URL: ${JSON.stringify(s)}`);
    }
  }
  if (/\s/.test(s)) notAnAddress(`${JSON.stringify(s)} has spaces, so it is not an address`);
  const rest = s.startsWith('//') ? s.slice(2) : s;
  let probe: URL;
  try {
    probe = new URL(`http://${rest}`);
  } catch {
    return notAnAddress(`not a URL: ${JSON.stringify(s)}`);
  }
  const host = probe.hostname;
  if (!host) notAnAddress(`no host name in ${JSON.stringify(s)}`);
  // A single word without a port is far more often a search term than an intranet host.
  if (host !== 'localhost' && !host.includes('.') && !host.startsWith('[') && !probe.port) notAnAddress(`${JSON.stringify(s)} is a single word, not an address`);
  return new URL(`${defaultsToHttp(host) ? 'http' : 'https'}://${rest}`).href;
}

/**
 * True when `host` (already a URL hostname) should get http by default: loopback names, IP literals and
 * single-label names (`intranet:8080`, a container name): development servers there rarely speak TLS.
 */
function defaultsToHttp(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || !hostname.includes('.') || parseHostAsIp(hostname) !== undefined;
}

const blocked = (message: string, next: string): never => {
  throw new BrowserdError('blocked', message, { next });
};

/** The literal addresses a URL host stands for without asking DNS, or undefined for an ordinary name. */
function literalAddresses(hostname: string): string[] | undefined {
  const ip = parseHostAsIp(hostname.replace(/^\[|\]$/g, ''));
  if (ip) return [ip];
  // RFC 6761: localhost names are loopback whatever a resolver says (Chromium and the proxy agree).
  if (/^(.+\.)?localhost\.?$/i.test(hostname)) return ['127.0.0.1', '::1'];
  return undefined;
}

function refusedScheme(scheme: string): never {
  const what = REFUSED_SCHEMES.has(scheme) ? `${scheme} URLs are not available to agents` : `the ${scheme} scheme is not supported`;
  return blocked(`${what}. Only http(s) addresses and about:blank can be opened.`, 'Use an http(s) address.');
}

/**
 * The text as a URL parser reads it: WHATWG and Chromium both drop leading and trailing control characters and
 * spaces and every tab and newline inside ("chr\tome:" is "chrome:"). Unicode spaces are trimmed too, as
 * normaliseUserUrl and Chromium's own fix-up of typed text do.
 */
function parserText(input: string): string {
  return String(input ?? '').replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').trim();
}

/** The scheme the text names ("chrome:"), lower-cased, or undefined when it names none (host:port is no scheme). */
function explicitScheme(input: string): string | undefined {
  const m = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(parserText(input));
  if (!m || /^\d+(?:[/?#]|$)/.test(m[2]!)) return undefined;
  return `${m[1]!.toLowerCase()}:`;
}

/** Schemes a page may be opened at through a CDP session: the web, and documents built inline from it. */
const PAGE_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:']);

/** about:blank, with or without a query or fragment: the empty page, and the only about: page that is not the browser's own. */
export function isAboutBlank(url: URL): boolean {
  return url.protocol === 'about:' && url.pathname === 'blank';
}

/**
 * The address a CDP client may open a page at (Target.createTarget, Page.navigate), or why not. Fails closed:
 * Chromium opens text the WHATWG parser rejects (chrome://version:x showed chrome://version), so text that does
 * not parse is refused, the scheme read from the raw text must be the one the parser found, and what goes on to
 * Chromium is the parser's own serialisation: the address that was checked, not a spelling Chromium may fix up
 * into another. Only http(s), data:, blob: of a web origin and about:blank are pages; chrome:, devtools:,
 * chrome-untrusted:, view-source:, file:, every other about: page and every unknown scheme are not.
 */
export function checkPageUrl(raw: unknown): { url: string } | { refused: string } {
  if (typeof raw !== 'string') return { refused: 'the url must be a string' };
  const text = parserText(raw);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: 'the url is not one the daemon can read, and what it cannot read it does not pass on (use an absolute http(s) URL)' };
  }
  if (explicitScheme(text) !== url.protocol) return { refused: 'the url\'s scheme is not one the daemon can read (use an absolute http(s) URL)' };
  if (url.protocol === 'about:') {
    return isAboutBlank(url) ? { url: url.href } : { refused: 'about: pages other than about:blank belong to the browser itself' };
  }
  if (!PAGE_SCHEMES.has(url.protocol)) return { refused: `${url.protocol} addresses are not available through the proxy (web addresses, data:, blob: and about:blank only)` };
  if (url.protocol === 'blob:') {
    // A blob: URL names the origin that made it; only a web page's blobs are pages.
    let inner: URL | undefined;
    try {
      inner = new URL(url.pathname);
    } catch {
      inner = undefined;
    }
    if (!inner || (inner.protocol !== 'http:' && inner.protocol !== 'https:')) return { refused: 'only blob: URLs of web pages (blob:https://...) may be opened' };
  }
  return { url: url.href };
}

/** A request's new address (Fetch.continueRequest, Network.loadNetworkResource): http(s) only, read as checkPageUrl reads. */
export function checkRequestUrl(raw: unknown): { url: string } | { refused: string } {
  const page = checkPageUrl(raw);
  if ('refused' in page) return page;
  const scheme = new URL(page.url).protocol;
  return scheme === 'http:' || scheme === 'https:' ? page : { refused: `a request may only go to an http(s) address, not ${scheme}` };
}

/**
 * The check: returns the URL to open, or throws validation_error (not an address) or blocked (an address
 * agents may not open: another scheme, or a literal private address the guard refuses).
 */
export function checkUrl(input: string, guard: UrlGuard): string {
  let normalised: string;
  try {
    normalised = normaliseUserUrl(input);
  } catch (e) {
    // Text that names another scheme but does not parse (chrome://version:x, which Chromium opens anyway) is
    // refused as that scheme, not merely as a typo: it may not be opened in any spelling.
    const scheme = explicitScheme(input);
    if (scheme && scheme !== 'http:' && scheme !== 'https:') refusedScheme(scheme);
    throw e;
  }
  let url: URL;
  try {
    url = new URL(normalised);
  } catch {
    return notAnAddress(`not a URL: ${JSON.stringify(input)}`);
  }
  // about:blank is the empty page a new tab starts on; nothing else under about: is for agents.
  if (url.protocol === 'about:' && url.pathname === 'blank') return 'about:blank';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refusedScheme(url.protocol);
  const addresses = literalAddresses(url.hostname);
  if (addresses) {
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const allowTargets = new Set(guard.allowTargets ?? []);
    const allow = guard.allowPrivateNetwork ? { loopback: true, private: true } : {};
    for (const address of addresses) {
      const pair = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
      if (isBlockedAddress(address, allow) && !allowTargets.has(pair)) {
        blocked(`${url.host} is a ${classifyAddress(address).replace('_', '-')} address, which pages may not reach`, ALLOW_PRIVATE_NEXT);
      }
    }
  }
  return url.href;
}
