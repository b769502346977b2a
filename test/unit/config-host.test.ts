/** Host checking and the settings it depends on: only real IP literals count as addresses; off loopback, names must be configured. */
import t from 'tap';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../daemon/config.js';
import { checkHostAndOrigin, hostName } from '../../daemon/http/origin.js';

t.test('listening off loopback needs the allowed host names', async (t) => {
  t.throws(() => loadConfig({ listen: '0.0.0.0:8787' }, {}), /BROWSERD_ALLOWED_HOSTS/);
  t.throws(() => loadConfig({ listen: '192.168.1.10:8787' }, {}), /BROWSERD_ALLOWED_HOSTS/);
  t.same(loadConfig({ listen: '0.0.0.0:8787' }, { BROWSERD_ALLOWED_HOSTS: 'Browser.Example.com, b.example' }).allowedHosts, ['browser.example.com', 'b.example']);
  t.same(loadConfig({ listen: '0.0.0.0:8787' }, { BROWSERD_PUBLIC_URL: 'https://browserd.example/' }).allowedHosts, ['browserd.example']);
  t.doesNotThrow(() => loadConfig({ listen: '127.0.0.1:8787' }, {}));
  t.doesNotThrow(() => loadConfig({ listen: '[::1]:8787' }, {}));
});

t.test('caps and idle time come from flags or environment, and bad values are refused', async (t) => {
  const c = loadConfig({ listen: '127.0.0.1:1' }, {});
  t.equal(c.maxTabsPerUser, 100);
  t.equal(c.maxMcpSessionsPerUser, 32);
  t.equal(c.browserIdleMs, 30 * 60 * 1000);
  const e = loadConfig({ listen: '127.0.0.1:1', 'max-tabs-per-user': '2' }, { BROWSERD_MAX_BROWSERS_PER_USER: '1', BROWSERD_BROWSER_IDLE_S: '1', BROWSERD_MAX_MCP_SESSIONS_PER_USER: '2' });
  t.same([e.maxTabsPerUser, e.maxBrowsersPerUser, e.browserIdleMs, e.maxMcpSessionsPerUser], [2, 1, 1000, 2]);
  t.throws(() => loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_MAX_TABS_PER_USER: 'lots' }), /max-tabs-per-user/);
  t.throws(() => loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_MAX_BROWSERS_PER_USER: '0' }), /max-browsers-per-user/);
});

t.test('tab builds at once: half the cores by default, BROWSERD_TAB_STARTS to set, named by its variable when wrong', async (t) => {
  t.equal(loadConfig({ listen: '127.0.0.1:1' }, {}).tabStarts, Math.max(1, Math.floor(availableParallelism() / 2)));
  t.equal(loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_TAB_STARTS: '3' }).tabStarts, 3);
  for (const bad of ['0', '1.5', 'many']) t.throws(() => loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_TAB_STARTS: bad }), /^BROWSERD_TAB_STARTS takes a whole number >= 1/, bad);
  // A setting without a flag is named by its variable, not by a flag that does not exist.
  t.throws(() => loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_MODEL_TIMEOUT_S: '0' }), /^BROWSERD_MODEL_TIMEOUT_S takes/);
});

t.test('a Host that merely starts like a loopback address is a name, and names must be allowed', async (t) => {
  const loop = { listenHost: '127.0.0.1', port: 8787, extraHosts: [], extraOrigins: [] };
  for (const h of ['127.0.0.1:8787', 'localhost', '[::1]:8787', '127.0.0.2']) t.equal(checkHostAndOrigin(loop, { host: h }), undefined, h);
  for (const h of ['127.0.0.1.rebind.evil.example', '127.0.0.1.nip.io', 'localhost.evil.example', 'evil.example:8787', '0x7f000001.example']) t.match(checkHostAndOrigin(loop, { host: h }), /not one this daemon answers to/, h);
  const pub = { listenHost: '0.0.0.0', port: 8787, extraHosts: ['browserd.example'], extraOrigins: [] };
  t.equal(checkHostAndOrigin(pub, { host: 'browserd.example:8787' }), undefined);
  t.match(checkHostAndOrigin(pub, { host: 'other.example' }), /not one/);
  t.equal(hostName('[::1]:8787'), '::1');
});

t.test('extra Chromium switches: separated by spaces, or a JSON array when a value holds spaces; bad JSON or a non-switch is refused', async (t) => {
  const cfg = (v?: string) => loadConfig({ listen: '127.0.0.1:1' }, v === undefined ? {} : { BROWSERD_CHROME_ARGS: v });
  t.same(cfg().chromeArgs, []);
  t.same(cfg(' --a=1   --b ').chromeArgs, ['--a=1', '--b']);
  const rules = '--host-resolver-rules=MAP *.test 127.0.0.1, EXCLUDE localhost';
  t.same(cfg(JSON.stringify([rules, '--c'])).chromeArgs, [rules, '--c'], 'a value with spaces stays one switch');
  t.throws(() => cfg('[--a'), /^BROWSERD_CHROME_ARGS starts with "\[" but is not JSON/);
  // Anything but a switch would be a page Chromium opens at start, outside every tab's rules.
  for (const bad of ['{"a":1}', '[1]', '["not-a-switch"]', '--a http://127.0.0.1:1/', '"--a"']) {
    t.throws(() => cfg(bad), /^BROWSERD_CHROME_ARGS takes Chromium switches/, bad);
  }
});
