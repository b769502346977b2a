/**
 * The browser opens no connection around the egress guard: chrome://inspect's TCP discovery and port forwarding,
 * and Cast/DIAL discovery, are off in every profile at every launch, whatever an earlier session left there.
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeProfilePreferences } from '../../../daemon/browser/preferences.js';
import { chromiumSwitches } from '../../../daemon/browser/switches.js';

t.test('a profile left with TCP discovery on is launched with it off', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-sockets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  mkdirSync(join(dir, 'Default'));
  const file = join(dir, 'Default', 'Preferences');
  writeFileSync(file, JSON.stringify({ devtools: { discover_tcp_targets: true, tcp_discovery_config: ['127.0.0.1:9'], port_forwarding_enabled: true, port_forwarding_config: { 8080: 'localhost:9' }, discover_usb_devices: true }, media_router: { enable_media_router: true } }));
  writeProfilePreferences(dir);
  const prefs = JSON.parse(readFileSync(file, 'utf8'));
  t.same(prefs.devtools, { discover_tcp_targets: false, tcp_discovery_config: [], port_forwarding_enabled: false, port_forwarding_config: {}, discover_usb_devices: false });
  t.equal(prefs.media_router.enable_media_router, false);
});

t.test('the media router\'s providers and Chromium\'s own DNS client are switched off', async (t) => {
  const s = chromiumSwitches({ userDataDir: '/tmp/x', headless: true, proxyPort: 4000 });
  const disabled = s.find((a) => a.startsWith('--disable-features='))!.slice('--disable-features='.length).split(',');
  for (const f of ['MediaRouter', 'DialMediaRouteProvider', 'CastMediaRouteProvider', 'AsyncDns']) t.ok(disabled.includes(f), f);
});
