/**
 * A host without Chromium: a call that needs the user's browser answers 503 browser_unavailable with the
 * admin's next step, not 500 internal_error, and leaves no tab behind. Nothing is launched in this file.
 */
import t from 'tap';
import { startTestDaemon } from '../fixtures/daemon.js';

t.test('a missing Chromium is browser_unavailable, naming what the admin installs', async (t) => {
  const d = await startTestDaemon({ chrome: '/nonexistent/browserd-test/chromium' });
  t.teardown(() => d.stop());
  const alice = await d.addUser('alice');
  const r = await d.rest(alice, 'POST', '/v1/tabs', { url: 'about:blank' });
  t.equal(r.status, 503, JSON.stringify(r.json));
  t.equal(r.json.error.code, 'browser_unavailable');
  t.match(r.json.error.next, /apt-get install chromium/);
  t.match(r.json.error.next, /BROWSERD_CHROME/);
  t.equal(d.daemon.env.tabs.list('alice').length, 0, 'no tab record is left');
  // Calls that need no browser still work.
  const me = await d.rest(alice, 'GET', '/v1/me');
  t.equal(me.status, 200);
});
