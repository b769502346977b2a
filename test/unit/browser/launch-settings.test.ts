/** The profile preferences written before launch, and how switches from config merge with ours. */
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeProfilePreferences } from '../../../daemon/browser/preferences.js';
import { chromiumSwitches } from '../../../daemon/browser/switches.js';

t.test('preferences: WebRTC UDP and sign-in are forced off, and the user\'s other settings stay', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-prefs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  mkdirSync(join(dir, 'Default'));
  const file = join(dir, 'Default', 'Preferences');
  writeFileSync(file, JSON.stringify({ homepage: 'https://example.com/', webrtc: { ip_handling_policy: 'default', other: 1 }, signin: 'garbage' }));
  writeProfilePreferences(dir);
  const prefs = JSON.parse(readFileSync(file, 'utf8'));
  t.equal(prefs.homepage, 'https://example.com/', 'an unrelated setting is kept');
  t.same(prefs.webrtc, { ip_handling_policy: 'disable_non_proxied_udp', other: 1, multiple_routes_enabled: false, nonproxied_udp_enabled: false });
  t.same(prefs.signin, { allowed: false, allowed_on_next_startup: false }, 'a malformed branch is replaced');
  writeFileSync(file, '{not json');
  writeProfilePreferences(dir);
  t.equal(JSON.parse(readFileSync(file, 'utf8')).webrtc.ip_handling_policy, 'disable_non_proxied_udp', 'an unreadable file is rewritten');
});

t.test('switches: no debugging port, and list switches from config merge into one each', async (t) => {
  const s = chromiumSwitches({ userDataDir: '/tmp/x', headless: true, proxyPort: 4000, extra: ['--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND', '--disable-features=Foo', '--lang=de'] });
  t.ok(s.includes('--remote-debugging-pipe'));
  t.notOk(s.some((a) => a.startsWith('--remote-debugging-port') || a.startsWith('--remote-debugging-address')));
  for (const name of ['--host-resolver-rules', '--disable-features', '--enable-features', '--proxy-bypass-list']) {
    t.equal(s.filter((a) => a.startsWith(`${name}=`)).length, 1, `one ${name}`);
  }
  t.ok(s.includes('--host-resolver-rules=MAP *.browserd.invalid ~NOTFOUND,MAP *.gvt1.com ~NOTFOUND,MAP *.gvt2.com ~NOTFOUND,MAP *.test 127.0.0.1,MAP * ~NOTFOUND'), 'the sink rules come first, then the caller\'s in order');
  t.match(s.find((a) => a.startsWith('--disable-features='))!, /WebRtcHideLocalIpsWithMdns.*,Foo$/);
  t.ok(s.includes('--proxy-bypass-list=<-loopback>;*.browserd.invalid;*.gvt1.com;*.gvt2.com'));
  t.ok(s.includes('--lang=de'), 'other extra switches pass through');
  t.ok(s.includes('--no-startup-window'), 'no start-up window: tabs get windows of their own');
  t.notOk(s.some((a) => !a.startsWith('--')), 'and no start-up URL');
});
