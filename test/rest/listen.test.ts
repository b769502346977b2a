/** One daemon per port: a second one started on a port in use fails to start, and the first keeps every request. */
import t from 'tap';
import { createServer, type AddressInfo } from 'node:net';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

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
