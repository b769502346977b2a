/**
 * An audit write that fails must not fail the call it records (the caller still gets its answer), and must
 * not vanish either: the operator's log says so. Every door (dispatch, MCP, REST changes) writes through this.
 */
import t from 'tap';
import { AuditStore, type AuditEntry } from '../../../storage/audit.js';

const entry: AuditEntry = { at: new Date(0).toISOString(), user: 'alice', tool: 'browser_tabs', via: 'rest', args: {}, outcome: 'ok', ms: 1 };

t.test('a failed write is logged, not thrown', async (t) => {
  const store = Object.create(AuditStore.prototype) as AuditStore;
  store.append = async () => {
    throw new Error('disk full');
  };
  const lines: { obj: object; msg: string }[] = [];
  await t.resolves(store.appendOrLog(entry, { error: (obj, msg) => lines.push({ obj, msg }) }));
  t.same(lines, [{ obj: { err: 'Error: disk full' }, msg: 'audit write failed' }]);
});

t.test('a good write logs nothing and reaches the store', async (t) => {
  const store = Object.create(AuditStore.prototype) as AuditStore;
  const written: AuditEntry[] = [];
  store.append = async (e) => {
    written.push(e);
  };
  const lines: string[] = [];
  await store.appendOrLog(entry, { error: (_o, msg) => lines.push(msg) });
  t.same(written, [entry]);
  t.same(lines, []);
});
