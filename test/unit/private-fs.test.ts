/** The data dir, the LMDB files and user files are the daemon user's alone, whatever the umask. */
import t from 'tap';
import { mkdtempSync, rmSync, statSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../storage/db.js';
import { FileStore } from '../../storage/files.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-perm-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
const mode = (p: string) => statSync(p).mode & 0o777;

t.test('a new data dir, its LMDB files and user files are 0700/0600 even under a permissive umask', async (t) => {
  const old = process.umask(0o000);
  t.teardown(() => void process.umask(old));
  const data = join(root, 'fresh', 'data');
  const db = openDb(data);
  await db.close();
  t.equal(mode(data), 0o700);
  t.equal(mode(join(data, 'browserd.lmdb')), 0o600);
  t.equal(mode(join(data, 'browserd.lmdb-lock')), 0o600);
  const files = new FileStore(data);
  files.write('alice', 'report.pdf', Buffer.from('%PDF-1.4'));
  t.equal(mode(join(data, 'files')), 0o700);
  t.equal(mode(join(data, 'files', 'alice')), 0o700);
  t.equal(mode(join(data, 'files', 'alice', 'report.pdf')), 0o600);
});

t.test('an existing world-readable data dir is tightened when opened', async (t) => {
  const data = join(root, 'old');
  mkdirSync(data, { mode: 0o755 });
  chmodSync(data, 0o755);
  const db = openDb(data);
  await db.close();
  t.equal(mode(data), 0o700);
});
