/**
 * The user store's list of ids, which the log scrub reads on every line: kept between lines, yet never missing
 * a user another process (the CLI) added meanwhile, whose vault values must be scrubbed from the next line.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { UserStore } from '../../../storage/users.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-users-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

t.test('ids: a user added through another handle on the store is in the very next list', async (t) => {
  const dir = join(root, 'ids');
  const daemonDb = openDb(dir);
  const daemonUsers = new UserStore(daemonDb);
  await daemonUsers.add('alice');
  t.same(daemonUsers.ids(), ['alice']);
  t.equal(daemonUsers.ids(), daemonUsers.ids(), 'the list is kept while nobody adds a user');

  // As `browserd user add` does beside a running daemon: its own store object, its own (empty) list.
  const cliDb = openDb(dir);
  await new UserStore(cliDb).add('bob');
  t.same(daemonUsers.ids().sort(), ['alice', 'bob']);

  await daemonUsers.add('carol');
  t.same(daemonUsers.ids().sort(), ['alice', 'bob', 'carol']);
  await cliDb.close();
  await daemonDb.close();
});
