/**
 * Every database a running daemon opens says how its rows name their user (storage/user-rows.ts): a store added
 * later that a move between fleet hosts would leave behind fails here.
 */
import t from 'tap';
import { startTestDaemon } from '../fixtures/daemon.js';
import { USER_ROWS, tableNames } from '../../storage/user-rows.js';

t.test('every database a daemon opens says how its rows name their user', async (t) => {
  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const names = tableNames(d.daemon.env.db);
  t.ok(names.length >= 25, `${names.length} databases`);
  t.same(names.filter((n) => !Object.hasOwn(USER_ROWS, n)), [], 'none unknown to storage/user-rows.ts');
});
