/**
 * Nothing leaves the browser around the egress guard, and the browser calls no one on its own: WebRTC in an
 * act tab sends no STUN/TURN packet to a loopback UDP listener, and during the whole file the guard logs no
 * attempt to any host the tests did not ask for (Google sign-in, updates, suggestions and the like).
 */
import t from 'tap';
import dgram from 'node:dgram';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../daemon/config.js';
import { startDaemon, type Daemon } from '../../daemon/main.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

let daemon: Daemon;
let site: FixtureSite;
let token: string;
let dataDir: string;
const blocked: { host: string; port: number; reason: string }[] = [];
const udp = dgram.createSocket('udp4');
const packets: { from: string; bytes: number }[] = [];
const tool = async (name: string, args: Record<string, unknown>) => {
  const res = await fetch(`${daemon.url}/v1/tools/${name}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(args) });
  return { status: res.status, json: (await res.json()) as any };
};

t.before(async () => {
  udp.on('message', (msg, rinfo) => packets.push({ from: `${rinfo.address}:${rinfo.port}`, bytes: msg.length }));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  site = await startSite();
  dataDir = mkdtempSync(join(tmpdir(), 'browserd-quiet-'));
  // The guard reports every refusal to the daemon's log: keep the 'egress blocked' lines.
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line);
        if (entry.msg === 'egress blocked') blocked.push({ host: entry.host, port: entry.port, reason: entry.reason });
      }
      done();
    },
  });
  const cfg: Config = {
    ...loadConfig({ listen: '127.0.0.1:0', data: dataDir }, { ...process.env, BROWSERD_ALLOW_PRIVATE_NETWORK: '1' }),
    chromeArgs: ['--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  };
  daemon = await startDaemon(cfg, pino({ level: 'info' }, sink));
  token = (await daemon.env.users.add('alice')).token;
});
t.teardown(async () => {
  await daemon.stop();
  await site.close();
  udp.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

t.test('WebRTC in an act tab sends no STUN or TURN packet to a loopback UDP listener', async (t) => {
  const port = (udp.address() as { port: number }).port;
  site.route('/rtc', html(`<p id="state">gathering</p><script>
    (async () => {
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: 'stun:127.0.0.1:${port}' },
        { urls: 'turn:127.0.0.1:${port}?transport=udp', username: 'u', credential: 'p' },
      ] });
      const kinds = [];
      pc.onicecandidate = (e) => { if (e.candidate) kinds.push(e.candidate.type || 'unknown'); };
      pc.createDataChannel('x');
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((resolve) => {
        if (pc.iceGatheringState === 'complete') return resolve();
        pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
      });
      document.getElementById('state').textContent = 'gathering complete: ' + (kinds.join(',') || 'no candidates');
    })().catch((e) => { document.getElementById('state').textContent = 'gathering complete: error ' + e; });
  </script>`));
  const tab = (await tool('browser_open', { url: `${site.url}/rtc`, mode: 'act' })).json.tab;
  const done = await tool('browser_wait', { tab, text: 'gathering complete', timeoutMs: 30000 });
  t.equal(done.status, 200, JSON.stringify(done.json));
  const state = await tool('browser_read_text', { tab });
  t.comment(JSON.stringify(state.json.text ?? state.json).slice(0, 300));
  t.same(packets, [], 'no UDP packet reached the listener');
});

t.test('the same holds in a named context (an off-the-record browser context)', async (t) => {
  const tab = (await tool('browser_open', { url: `${site.url}/rtc`, mode: 'act', context: 'rtc' })).json.tab;
  const done = await tool('browser_wait', { tab, text: 'gathering complete', timeoutMs: 30000 });
  t.equal(done.status, 200, JSON.stringify(done.json));
  t.same(packets, [], 'no UDP packet reached the listener');
});

t.test('the guard saw no attempt the tests did not make', async (t) => {
  // Give Chromium's own start-up and background work (sign-in, updates, suggestions) time to show itself.
  const tab = (await tool('browser_open', { url: `${site.url}/rtc`, mode: 'act' })).json.tab;
  await tool('browser_wait', { tab, text: 'gathering complete', timeoutMs: 30000 });
  await tool('browser_wait', { tab, timeMs: 5000 });
  t.same(blocked, [], 'nothing blocked: no request to any host the tests did not name');
});
