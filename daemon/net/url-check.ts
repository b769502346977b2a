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

const ACCEPTED = 'Accepted: an http(s) URL (https://example.com/page), a host name (example.com means https://example.com/), or host:port (localhost:3000 means http://localhost:3000/).';

// Schemes that reach into the browser itself or the machine (file:, chrome:, devtools:), run code in the
// current page (javascript:), or build a page from the agent's own text (data:, which is how phishing
// lookalikes get drawn). Named so the refusal can say which one it was.
const REFUSED_SCHEMES = new Set([
  'file:', 'chrome:', 'chrome-extension:', 'chrome-untrusted:', 'chrome-search:', 'devtools:', 'view-source:',
  'javascript:', 'data:', 'blob:', 'filesystem:', 'about:',
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

/**
 * The check: returns the URL to open, or throws validation_error (not an address) or blocked (an address
 * agents may not open: another scheme, or a literal private address the guard refuses).
 */
export function checkUrl(input: string, guard: UrlGuard): string {
  const normalised = normaliseUserUrl(input);
  let url: URL;
  try {
    url = new URL(normalised);
  } catch {
    return notAnAddress(`not a URL: ${JSON.stringify(input)}`);
  }
  // about:blank is the empty page a new tab starts on; nothing else under about: is for agents.
  if (url.protocol === 'about:' && url.pathname === 'blank') return 'about:blank';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const what = REFUSED_SCHEMES.has(url.protocol) ? `${url.protocol} URLs are not available to agents` : `the ${url.protocol} scheme is not supported`;
    blocked(`${what}. Only http(s) addresses and about:blank can be opened.`, 'Use an http(s) address.');
  }
  const addresses = literalAddresses(url.hostname);
  if (addresses) {
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const allowTargets = new Set(guard.allowTargets ?? []);
    const allow = guard.allowPrivateNetwork ? { loopback: true, private: true } : {};
    for (const address of addresses) {
      const pair = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
      if (isBlockedAddress(address, allow) && !allowTargets.has(pair)) {
        blocked(`${url.host} is a ${classifyAddress(address).replace('_', '-')} address, which pages may not reach`, 'Use a public address; an admin can allow private networks or single targets for development.');
      }
    }
  }
  return url.href;
}
