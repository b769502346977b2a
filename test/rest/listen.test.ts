/** One daemon per port and per data dir: a second one fails to start, and the first keeps every request and its store. */
import t from 'tap';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'node:http';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

function statusOnNewConnection(url: string, token: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/tabs`, { agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

let first: TestDaemon;
t.before(async () => {
  // A port named up front, as an operator's --listen does (a port-0 listener is not shared the same way).
  first = await startTestDaemon({ port: await freePort() });
});
t.teardown(() => first.stop());

t.test('a second daemon on the same port is refused at start, not listening beside the first', async (t) => {
  const port = Number(new URL(first.url).port);
  await t.rejects(startTestDaemon({ port }), /cannot listen on 127\.0\.0\.1:\d+ \(in use/);
  // Had it listened too (SO_REUSEPORT), the kernel would hand it some of these connections.
  const token = await first.addUser('solo');
  for (let i = 0; i < 20; i++) {
    const r = await first.rest(token, 'GET', '/v1/tabs');
    t.equal(r.status, 200, `request ${i} reached the first daemon`);
  }
});

t.test('a second daemon on the same data dir is refused at start; once the first stops, the dir can be used', async (t) => {
  await t.rejects(startTestDaemon({}, { keepDataDir: first.dataDir }), new RegExp(`another browserd \\(pid ${process.pid}\\) is running on the data dir`));
  const token = await first.addUser('kept');
  t.equal((await first.rest(token, 'GET', '/v1/tabs')).status, 200, 'the first still serves from its store');
  await first.restart();
  // On a connection of its own: a kept-alive one still leads to the stopped daemon's server in this process.
  t.equal(await statusOnNewConnection(first.url, token), 200, 'stopped and started again on the same dir, with the same user');
});
