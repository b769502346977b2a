/**
 * A user archive is taken whole or not at all: a cut stream, a row of another user, a name that is no user name,
 * or a file outside the user's directories is refused before anything is placed.
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { openDb } from '../../../storage/db.js';
import { UserStore } from '../../../storage/users.js';
import { exportUser, readArchive } from '../../../daemon/fleet/user-archive.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-archive-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
const data = join(root, 'data');
const db = openDb(data);
t.teardown(() => db.close());

const frame = (o: unknown) => {
  const body = pack(o);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};

let whole: Buffer;
t.before(async () => {
  const users = new UserStore(db);
  await users.add('alice');
  await users.add('bob');
  mkdirSync(join(data, 'files', 'alice'), { recursive: true });
  writeFileSync(join(data, 'files', 'alice', 'note.txt'), 'alice wrote this');
  const chunks: Buffer[] = [];
  for await (const c of exportUser(db, data, 'alice', users.routingKey('alice'))) chunks.push(c);
  whole = Buffer.concat(chunks);
});

const readBytes = (bytes: Buffer, name: string) => {
  const file = join(root, `${name}.archive`);
  writeFileSync(file, bytes);
  return () => readArchive(file, join(root, `${name}-stage`));
};

t.test('a whole archive reads back: her rows and her file', async (t) => {
  const a = readBytes(whole, 'whole')();
  t.equal(a.user, 'alice');
  t.ok(a.rows.length >= 3 && a.rows.every((r) => JSON.stringify(r.key).includes('alice') || r.table === 'tokens'), `${a.rows.length} rows, hers`);
  t.equal(a.files, 1);
  t.equal(readFileSync(join(root, 'whole-stage', 'files', 'alice', 'note.txt'), 'utf8'), 'alice wrote this');
});

t.test('a cut archive is refused, wherever it was cut', async (t) => {
  for (const at of [3, 10, Math.floor(whole.length / 2), whole.length - 1]) {
    t.throws(readBytes(whole.subarray(0, at), `cut-${at}`), /cut|no end/, `cut at ${at} of ${whole.length} bytes`);
  }
});

t.test("a row of another user, a bad name, or a file outside the user's directories is refused", async (t) => {
  const head = (user: string) => frame({ f: 'head', version: 1, user });
  const end = (rows: number, files: number, bytes: number) => frame({ f: 'end', rows, files, bytes });
  const bobsTab = frame({ f: 'row', table: 'tabs', key: 'bob\u0000t1', value: pack({ user: 'bob', id: 't1' }) });
  t.throws(readBytes(Buffer.concat([head('alice'), bobsTab, end(1, 0, 0)]), 'other-row'), /not alice's/, "bob's row in alice's archive");
  const unknown = frame({ f: 'row', table: 'nosuchtable', key: 'alice\u0000x', value: pack(1) });
  t.throws(readBytes(Buffer.concat([head('alice'), unknown, end(1, 0, 0)]), 'unknown-table'), /not alice's/, 'a row of a database the host does not know');
  t.throws(readBytes(Buffer.concat([head('..'), end(0, 0, 0)]), 'bad-name'), /no valid user/, 'a name that is a path');
  const escape = frame({ f: 'file', path: 'files/alice/../../vault.key', mode: 0o600 });
  t.throws(readBytes(Buffer.concat([head('alice'), escape, end(0, 1, 0)]), 'escape'), /outside/, 'a path that climbs out');
  const elsewhere = frame({ f: 'file', path: 'files/bob/x.txt', mode: 0o600 });
  t.throws(readBytes(Buffer.concat([head('alice'), elsewhere, end(0, 1, 0)]), 'elsewhere'), /outside/, "a file in bob's directory");
  t.notOk(existsSync(join(root, 'elsewhere-stage', 'files', 'bob')), 'and nothing was written for it');
});
