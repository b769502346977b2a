/**
 * Attack: an operator's typo must stop `browserd serve`, with a message naming the setting, rather than start it
 * on a default or on a value that breaks later. Every whole-number setting (flag and variable), and the variables
 * other modules read, get negative, empty, non-numeric, non-decimal and huge values through loadConfig.
 */
import t from 'tap';
import { loadConfig } from '../../daemon/config.js';
import { SETTINGS, envName } from '../../daemon/settings.js';

const BASE = { HOME: '/tmp' } as NodeJS.ProcessEnv;
const BAD = ['-1', '', ' ', 'abc', '1.5', '0x10', '1e3', '12abc', '1e400', '99999999999', '9007199254740993'];

/** Settings whose value is a whole number (flag or variable alone), read by loadConfig or by their own module. */
const NUMERIC = SETTINGS.filter((s) => s.arg === 'N' || s.arg === 'MB' || s.arg === 'S' || s.arg === 'M' || /^BROWSERD_.*_(S|MB|MS|THREADS|STARTS|PER_HOUR)$/.test(envName(s)));

t.test('every whole-number setting refuses a bad value, naming itself', async (t) => {
  t.ok(NUMERIC.length > 20, `${NUMERIC.length} numeric settings`);
  for (const s of NUMERIC) {
    const name = envName(s);
    const names = new RegExp(`${s.flag ? `--${s.flag}|` : ''}${name}`);
    for (const bad of BAD) {
      t.throws(() => loadConfig({}, { ...BASE, [name]: bad }), { message: names }, `${name}=${JSON.stringify(bad)}`);
      if (s.flag) t.throws(() => loadConfig({ [s.flag!]: bad }, BASE), { message: names }, `--${s.flag} ${JSON.stringify(bad)}`);
    }
  }
});

t.test('the data directory may not be empty', async (t) => {
  t.throws(() => loadConfig({ data: '' }, BASE), { message: /--data|BROWSERD_DATA/ });
  t.throws(() => loadConfig({}, { ...BASE, BROWSERD_DATA: '' }), { message: /--data|BROWSERD_DATA/ });
});

t.test('a switch variable takes 0 or 1 only: "false" does not silently mean on', async (t) => {
  for (const bad of ['false', 'true', 'yes', 'no', '2', ' ']) {
    t.throws(() => loadConfig({}, { ...BASE, BROWSERD_HEADLESS: bad }), { message: /BROWSERD_HEADLESS/ }, `BROWSERD_HEADLESS=${bad}`);
    t.throws(() => loadConfig({}, { ...BASE, BROWSERD_ALLOW_PRIVATE_NETWORK: bad }), { message: /BROWSERD_ALLOW_PRIVATE_NETWORK/ }, `BROWSERD_ALLOW_PRIVATE_NETWORK=${bad}`);
  }
  t.equal(loadConfig({}, { ...BASE, BROWSERD_HEADLESS: '0' }).headless, false);
  t.equal(loadConfig({}, { ...BASE, BROWSERD_HEADLESS: '1' }).headless, true);
  t.equal(loadConfig({}, { ...BASE, BROWSERD_ALLOW_PRIVATE_NETWORK: '0' }).allowPrivateNetwork, false);
});

t.test('the log level must be one pino knows', async (t) => {
  t.throws(() => loadConfig({}, { ...BASE, BROWSERD_LOG_LEVEL: 'verbose' }), { message: /BROWSERD_LOG_LEVEL/ });
  t.doesNotThrow(() => loadConfig({}, { ...BASE, BROWSERD_LOG_LEVEL: 'debug' }));
});

t.test('addresses: a public URL must be http(s), an allowed target must be address:port', async (t) => {
  for (const bad of ['ftp://example.com', 'javascript:alert(1)', 'example.com']) {
    t.throws(() => loadConfig({}, { ...BASE, BROWSERD_PUBLIC_URL: bad }), { message: /BROWSERD_PUBLIC_URL/ }, bad);
  }
  for (const bad of ['10.0.0.5', 'localhost:3000x', '10.0.0.5:99999', '::1:3000']) {
    t.throws(() => loadConfig({}, { ...BASE, BROWSERD_ALLOW_TARGETS: bad }), { message: /BROWSERD_ALLOW_TARGETS/ }, bad);
  }
  t.same(loadConfig({}, { ...BASE, BROWSERD_ALLOW_TARGETS: '10.0.0.5:443, [::1]:3000' }).allowTargets, ['10.0.0.5:443', '[::1]:3000']);
});

t.test('good values still load', async (t) => {
  const c = loadConfig({ 'max-tabs-per-user': '7', 'browser-idle-s': '0' }, { ...BASE, BROWSERD_CDP_TIMEOUT_MS: '60000', BROWSERD_MARKDOWN_THREADS: '2', BROWSERD_STORE_RESERVE_MB: '0', BROWSERD_LIVE_LINK_S: '60' });
  t.equal(c.maxTabsPerUser, 7);
  t.equal(c.browserIdleMs, 0);
});
