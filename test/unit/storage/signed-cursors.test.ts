/** One signed-cursor scheme for every paged store: a cursor opens only for the scope it was issued to, unedited. */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { InvalidCursorError, SignedCursors } from '../../../storage/cursor-key.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-cursors-'));
const db = openDb(dir);
t.teardown(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('a cursor opens for its own scope and position only', async (t) => {
  const c = new SignedCursors(db, 'testCursorKey');
  const cur = c.issue(['alice', 'crw_1'], '3f');
  t.equal(c.open(['alice', 'crw_1'], cur, /^[0-9a-z]+$/), '3f');
  t.throws(() => c.open(['bob', 'crw_1'], cur, /^[0-9a-z]+$/), InvalidCursorError, "another user's");
  t.throws(() => c.open(['alice', 'crw_2'], cur, /^[0-9a-z]+$/), InvalidCursorError, "another run's");
  t.throws(() => c.open(['alice', 'crw_1'], cur.replace(/^3f/, '3e'), /^[0-9a-z]+$/), InvalidCursorError, 'an edited position');
  t.throws(() => c.open(['alice', 'crw_1'], '3f', /^[0-9a-z]+$/), InvalidCursorError, 'no signature');
  t.throws(() => c.open(['alice', 'crw_1'], cur, /^[0-9]+$/), InvalidCursorError, 'a position of another shape');
  // The scope's parts are kept apart: ["a\0b"] is not ["a", "b"] ... nor is ["ab"] ["a", "b"].
  const joined = c.issue(['ab'], 'x');
  t.throws(() => c.open(['a', 'b'], joined, /^x$/), InvalidCursorError);
});

t.test('the secret is per store name and survives a reopen', async (t) => {
  const a = new SignedCursors(db, 'testCursorKey');
  const b = new SignedCursors(db, 'otherCursorKey');
  const cur = a.issue(['alice'], 'p');
  t.throws(() => b.open(['alice'], cur, /^p$/), InvalidCursorError, "one store's cursor is not another's");
  t.equal(new SignedCursors(db, 'testCursorKey').open(['alice'], cur, /^p$/), 'p', 'the same store later still opens it');
});
