/**
 * `serve` on an address already taken: it says who holds it (a browserd, with its version, or another
 * program), exits non-zero, and has not made the data dir it was given.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestDaemon } from '../fixtures/daemon.js';
import { VERSION } from '../../daemon/version.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'browserd-port-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

async function serveOn(port: number) {
  const data = join(scratch, `data-${port}`);
  const r = await run(process.execPath, [bin, 'serve', '--listen', `127.0.0.1:${port}`, '--data', data], { encoding: 'utf8', timeout: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  return { ...r, dataMade: existsSync(data) };
}

t.test('a port a browserd holds is named as such, and nothing is made', async (t) => {
  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const port = Number(new URL(d.url).port);
  const r = await serveOn(port);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is in use by a browserd \\(version ${VERSION.replace(/\./g, '\\.')}\\)`));
  t.notOk(r.dataMade, 'the data dir was not made');
});

t.test('a port another program holds is named as such, and nothing is made', async (t) => {
  const other = createServer((s) => s.end('not http\r\n'));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  t.teardown(() => void other.close());
  const port = (other.address() as AddressInfo).port;
  const r = await serveOn(port);
  t.equal(r.code, 1);
  t.match(r.stderr, `127.0.0.1:${port} is in use by another program`);
  t.notOk(r.dataMade, 'the data dir was not made');
});
