/** Which page URLs the catch-all watch takes a page off: the browser's own pages, and whatever it cannot read. */
import t from 'tap';
import { isBrowserInternalUrl } from '../../../daemon/browser/internal-pages.js';

t.test('internal: the browser\'s and the host\'s pages, and what does not parse', async (t) => {
  for (const url of [
    'chrome://version/', 'chrome://inspect/#devices', 'chrome://settings/', 'chrome-untrusted://terminal/', 'devtools://devtools/bundled/inspector.html',
    'about:settings', 'about:version', 'view-source:https://example.com/', 'file:///etc/passwd', 'chrome-extension://abc/x.html',
    'chrome-search://local-ntp/', 'isolated-app://x/', 'filesystem:https://example.com/temporary/x', 'ftp://example.com/', 'not a url', 'chrome://version:x',
  ]) {
    t.ok(isBrowserInternalUrl(url), url);
  }
});

t.test('not internal: the web, inline documents, about:blank, a new page and the error page', async (t) => {
  for (const url of ['', 'https://example.com/', 'http://127.0.0.1:1/x', 'about:blank', 'about:blank#blocked', 'about:srcdoc', 'data:text/html,x', 'blob:https://example.com/1', 'chrome-error://chromewebdata/']) {
    t.notOk(isBrowserInternalUrl(url), url || '(empty)');
  }
});
