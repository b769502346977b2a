/**
 * The rows a move copies: a user's rows are theirs alone (no other user's, even one whose name starts the
 * same), and rows copied to another store read back through the stores as they were. That every database a
 * daemon opens is listed is test/integration/store-tables.test.ts (it starts a daemon).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { putUserRows, removeUserRows, userRows } from '../../../storage/user-rows.js';
import { UserStore } from '../../../storage/users.js';
import { TabStore } from '../../../storage/tabs.js';
import { AuditStore } from '../../../storage/audit.js';

t.test("a user's rows are theirs alone, and copy to another store whole", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'browserd-user-rows-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const a = openDb(join(root, 'a'));
  const users = new UserStore(a);
  const tabs = new TabStore(a);
  const audit = new AuditStore(a);
  const { token } = await users.add('al');
  await users.add('alice');
  for (const user of ['al', 'alice']) {
    await tabs.put({ user, id: 't1', url: `https://${user}.test/`, mode: 'read', createdAt: new Date().toISOString() } as never);
    await audit.append({ user, at: new Date().toISOString(), tool: 'browser_open', ok: true } as never);
  }
  const rows = [...userRows(a, 'al')];
  t.ok(rows.length >= 5, `${rows.length} rows of al`);
  t.notOk(rows.some((r) => JSON.stringify(r.key).includes('alice')), "none of alice's, though her name starts with al");

  const b = openDb(join(root, 'b'));
  // A store with a history of its own: rows written first, of other shapes, so a value that leaned on the first
  // store's encoding state (shared record structures) would read back wrong here.
  await new UserStore(b).add('zed');
  await new TabStore(b).put({ user: 'zed', id: 't9', createdAt: 'x', url: 'https://zed.test/', mode: 'act', extra: [1, 2, 3] } as never);
  const bUsers = new UserStore(b);
  t.same(bUsers.ids(), ['zed'], 'the new store keeps its list of ids (the log scrub reads it on every line)');
  await putUserRows(b, rows);
  await bUsers.noteUsersChanged();
  t.same(bUsers.ids().sort(), ['al', 'zed'], 'told, it lists the user who arrived, so their vault values are scrubbed from its log');
  t.equal(new UserStore(b).authenticate(token)?.id, 'al', 'the token works on the new store');
  t.equal(new TabStore(b).get('al', 't1')?.url, 'https://al.test/', 'the tab is there');
  t.equal(new AuditStore(b).page('al', { limit: 10 }).entries.length, 1, 'the audit entry too');
  t.notOk(new UserStore(b).get('alice'), 'and nobody else');

  t.equal(await removeUserRows(a, 'al'), rows.length, 'removed from the old store, every row');
  t.same([...userRows(a, 'al')], []);
  t.equal(users.get('alice')?.name, 'alice', "alice's stay");
  t.equal(tabs.get('alice', 't1')?.url, 'https://alice.test/');
  await a.close();
  await b.close();
});
