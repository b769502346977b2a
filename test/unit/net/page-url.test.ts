/**
 * The address checks fail closed: what the WHATWG parser cannot read is refused, not passed on for Chromium to
 * fix up (chrome://version:x opened chrome://version), and every spelling of a browser-internal page is refused
 * by the agents' check (checkUrl) and the CDP proxy's (checkPageUrl) alike.
 */
import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { checkPageUrl, checkRequestUrl, checkUrl } from '../../../daemon/net/url-check.js';

/** Every way of writing an internal page we know of: case, whitespace and control characters, ports, fix-ups. */
const INTERNAL = [
  'chrome://version:x', 'CHROME://version:x', 'chrome://version:99999999', 'chrome://settings:1/', 'CHROME://version', 'Chrome://Version',
  ' chrome://version', '  chrome://version  ', '\tchrome://version', 'chr\tome://version', 'chrome://ver\nsion', 'chrome:\r//version',
  '\u0000chrome://version', '\u001fchrome://version\u0000', '\u00a0chrome://version', '\u3000chrome://version', '\ufeffchrome://version',
  'chrome:version', 'chrome:///version', 'chrome:/version', 'chrome://inspect', 'chrome://inspect/#devices', 'chrome://flags',
  'chrome://policy', 'chrome://extensions', 'about:settings', 'about:version', 'ABOUT:inspect', 'about:srcdoc', 'about:blank/../settings',
  'about://settings', 'about:%62lank', 'devtools://devtools/bundled/inspector.html', 'devtools://devtools:x/', 'view-source:chrome://version',
  'view-source:https://example.com/', 'chrome-untrusted://terminal/', 'chrome-untrusted://x:y/', 'chrome-extension://abc/page.html',
  'chrome-search://local-ntp/', 'isolated-app://x/', 'chrome-error://chromewebdata/', 'chrome-native://newtab/', 'file:///etc/passwd',
  'filesystem:chrome://version/temporary/x', 'blob:chrome://version/1234', 'blob:null/1234', 'javascript:location="chrome://version"',
  '%63hrome://version', 'chrome%3A//version', 'version', '://chrome://version', 'intent://x#Intent;end',
];

t.test('checkPageUrl: every spelling of an internal page, and everything it cannot read, is refused', async (t) => {
  for (const url of INTERNAL) {
    const r = checkPageUrl(url);
    t.ok('refused' in r, `refused: ${JSON.stringify(url)}`);
  }
  for (const bad of [undefined, null, 5, {}, ['http://x/']]) t.ok('refused' in checkPageUrl(bad), `not a string: ${JSON.stringify(bad)}`);
});

t.test('checkPageUrl: the web, inline documents and about:blank pass, as the parser serialised them', async (t) => {
  const cases: [string, string][] = [
    ['https://example.com', 'https://example.com/'],
    ['  http://127.0.0.1:8080/x?y=1#z ', 'http://127.0.0.1:8080/x?y=1#z'],
    ['HTTP://EXAMPLE.com/A', 'http://example.com/A'],
    ['ht\ttp://example.com/', 'http://example.com/'],
    ['about:blank', 'about:blank'],
    ['about:blank#frag', 'about:blank#frag'],
    ['ABOUT:blank', 'about:blank'],
    ['data:text/html,<p>hi</p>', 'data:text/html,<p>hi</p>'],
    ['blob:https://example.com/0b5c6a3e-1f2d-4c3b-8a9e-0d1c2b3a4f5e', 'blob:https://example.com/0b5c6a3e-1f2d-4c3b-8a9e-0d1c2b3a4f5e'],
  ];
  for (const [input, url] of cases) t.same(checkPageUrl(input), { url }, JSON.stringify(input));
});

t.test('checkRequestUrl: a request goes to http(s) only', async (t) => {
  t.same(checkRequestUrl('https://example.com/a'), { url: 'https://example.com/a' });
  for (const url of ['data:,x', 'about:blank', 'file:///etc/passwd', 'chrome://version:x', 'ws://example.com/']) t.ok('refused' in checkRequestUrl(url), url);
});

t.test('checkUrl (the agents\' tools): an internal page in any spelling is blocked, never opened', async (t) => {
  const open = { allowPrivateNetwork: true };
  for (const url of INTERNAL) {
    let outcome: string;
    try {
      outcome = `opened ${checkUrl(url, open)}`;
    } catch (e) {
      outcome = e instanceof BrowserdError ? e.code : String(e);
    }
    t.ok(outcome === 'blocked' || outcome === 'validation_error', `${JSON.stringify(url)} -> ${outcome}`);
  }
  // Text that names an internal scheme is refused as that scheme, even when it does not parse.
  for (const url of ['chrome://version:x', 'CHROME://version:x', ' devtools://devtools:x/', 'chrome-untrusted://x:y/']) {
    t.throws(() => checkUrl(url, open), { code: 'blocked', message: /URLs are not available to agents/ }, JSON.stringify(url));
  }
  t.equal(checkUrl('about:blank', open), 'about:blank');
  t.equal(checkUrl('localhost:3000', open), 'http://localhost:3000/', 'host:port is still no scheme');
});
