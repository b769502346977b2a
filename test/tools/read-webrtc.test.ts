/**
 * A read tab cannot open a WebRTC connection in any realm: no UDP packet reaches a loopback STUN "server" from
 * its page or from a cross-site frame inside it. (Act tabs are governed by the browser-wide WebRTC policy, which
 * has its own test.)
 */
import t from 'tap';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let stack: Stack;
let udp: Socket;
const packets: string[] = [];
const reports = new Map<string, (r: string) => void>();

t.before(async () => {
  stack = await startStack();
  udp = createSocket('udp4');
  udp.on('message', (_m, from) => packets.push(`${from.address}:${from.port}`));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  const port = (udp.address() as AddressInfo).port;
  // The page reports once it has tried: refused at once, or after its first ICE candidate (a STUN request to
  // the listener is on its way by then).
  const tryRtc = (where: string) => `<script>
    (async () => {
      let r;
      try {
        const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] });
        pc.createDataChannel('x');
        const first = new Promise((res) => { pc.onicecandidate = () => res('candidate'); setTimeout(() => res('no candidate'), 3000); });
        await pc.setLocalDescription(await pc.createOffer());
        r = 'created, ' + await first;
      } catch (e) { r = 'refused: ' + e.name; }
      fetch('/rtc-done?where=${where}&r=' + encodeURIComponent(r));
    })();
  </script>`;
  stack.site.route('/rtc', html(`<h1>RTC</h1>${tryRtc('page')}<iframe src="http://rtc-frame.test:${stack.site.port}/rtc-frame"></iframe>`));
  stack.site.route('/rtc-frame', html(tryRtc('frame')));
  stack.site.route('/rtc-done', (req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    reports.get(q.get('where') ?? '')?.(q.get('r') ?? '');
    res.writeHead(200, { 'access-control-allow-origin': '*' });
    res.end();
  });
});
t.teardown(async () => {
  udp.close();
  await stack.stop();
});

const reported = (where: string) => new Promise<string>((resolve) => reports.set(where, resolve));

t.test('the UDP listener counts what arrives', async (t) => {
  const probe = createSocket('udp4');
  const got = new Promise<void>((r) => udp.once('message', () => r()));
  probe.send('probe', (udp.address() as AddressInfo).port, '127.0.0.1');
  await got;
  probe.close();
  t.equal(packets.length, 1, 'a packet sent to it is counted');
  packets.length = 0;
});

t.test('a read tab and its cross-site frame cannot make a peer connection; no packet arrives', async (t) => {
  const page = reported('page');
  const frame = reported('frame');
  const open = await call(stack.client, 'browser_open', { url: `${stack.site.url}/rtc` });
  t.notOk(open.isError, open.text);
  t.match(await page, /^refused: SecurityError/, 'the page was refused');
  t.match(await frame, /^refused: SecurityError/, 'the cross-site frame was refused');
  t.same(packets, [], 'no UDP packet reached the listener');
});
