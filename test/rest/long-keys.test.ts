/**
 * No string a caller chooses reaches LMDB as a key past its size (issue 34 item 15): browser_remember with a
 * 2,048-character host answered internal_error (LMDB "Key size is larger than the maximum key size"). Every tool
 * argument and REST path segment or body field that becomes part of a storage key is sent here at its worst, 3,000
 * ASCII characters, 600 four-byte emoji (2,400 bytes) and 5,000 characters, and must answer a clean 4xx (validation_error with a next
 * step, or not_found / unauthorized for a lookup), never 500, with nothing stored. No browser starts here.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { closeAll } from '../fixtures/close-all.js';

// 5,000 characters too: lmdb-js threw on a mere lookup past about 4 KB (an unknown SMS inbox answered 500).
const LONG = ['a'.repeat(3000), '\u{1F600}'.repeat(600), `x.${'b'.repeat(2990)}.com`, 'c'.repeat(5000)];

let d: TestDaemon;
let alice: string;
let admin: string;
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  admin = await d.daemon.env.users.replaceAdminKey();
});
t.teardown(() => closeAll(() => d.stop()));

/** A refusal of the caller's value: a 4xx in the closed set, never internal_error. */
function refused(t: Pick<typeof import('tap').default, 'ok' | 'equal' | 'type'>, r: { status: number; json: any }, what: string, codes = ['validation_error']) {
  t.ok(r.status >= 400 && r.status < 500, `${what}: a 4xx (got ${r.status} ${r.json?.error?.code})`);
  t.ok(codes.includes(r.json?.error?.code), `${what}: ${codes.join(' or ')} (got ${r.json?.error?.code}: ${String(r.json?.error?.message).slice(0, 120)})`);
  if (r.json?.error?.code === 'validation_error') t.type(r.json.error.next, 'string', `${what}: says what to do next`);
}

const tool = (name: string, args: Record<string, unknown>) => d.rest(alice, 'POST', `/v1/tools/${name}`, args);

t.test('tool arguments that name stored records refuse an over-long value', async (t) => {
  for (const v of LONG) {
    const tag = `${v.length} UTF-16 units`;
    refused(t, await tool('browser_remember', { host: v, note: 'n' }), `browser_remember host ${tag}`);
    refused(t, await tool('browser_recall', { host: v }), `browser_recall host ${tag}`);
    refused(t, await tool('browser_remember', { host: `https://${v}/`, note: 'n' }), `browser_remember URL host ${tag}`);
    refused(t, await tool('browser_session_save', { name: v }), `browser_session_save name ${tag}`);
    refused(t, await tool('browser_session_load', { name: v }), `browser_session_load name ${tag}`);
    refused(t, await tool('browser_session_delete', { name: v }), `browser_session_delete name ${tag}`);
    refused(t, await tool('browser_fill_secret', { site: v, field: 'password', ref: 'e1' }), `browser_fill_secret site ${tag}`);
    refused(t, await tool('browser_fill_secret', { site: 'example.com', field: v, ref: 'e1' }), `browser_fill_secret field ${tag}`);
    refused(t, await tool('browser_fill_otp', { site: 'example.com', inbox: v, ref: 'e1' }), `browser_fill_otp inbox ${tag}`);
    refused(t, await tool('browser_read', { urls: ['https://example.test/'], cache: 'record', cacheName: v }), `browser_read cacheName ${tag}`);
    refused(t, await tool('browser_crawl_status', { id: v }), `browser_crawl_status id ${tag}`);
    refused(t, await tool('browser_monitor', { action: 'delete', id: v }), `browser_monitor id ${tag}`);
    refused(t, await tool('browser_replay', { id: v }), `browser_replay id ${tag}`);
    refused(t, await tool('browser_handoff_wait', { id: v }), `browser_handoff_wait id ${tag}`);
    refused(t, await tool('browser_open', { profile: v }), `browser_open profile ${tag}`);
    refused(t, await tool('browser_close_tab', { tab: v }), `browser_close_tab tab ${tag}`);
    refused(t, await tool('browser_explore', { url: `http://${v}/` }), `browser_explore host ${tag}`);
  }
  t.same(d.daemon.env.siteMemory.hosts(d.daemon.env.users.list()[0]!.id), [], 'no site was remembered');
});

t.test('the same over MCP: a tool error, not an internal one', async (t) => {
  const client = await d.mcp(alice);
  for (const v of LONG) {
    const r: any = await client.callTool({ name: 'browser_remember', arguments: { host: v, note: 'n' } });
    t.ok(r.isError, 'refused');
    const text = r.content.map((c: any) => c.text ?? '').join('\n');
    t.match(text, /validation_error/, 'as validation_error');
    t.notMatch(text, /internal_error|Key size/, 'not as an internal error');
  }
});

t.test('REST path segments and body fields that name stored records refuse an over-long value', async (t) => {
  for (const v of LONG) {
    const tag = `${v.length} UTF-16 units`;
    const seg = encodeURIComponent(v);
    refused(t, await d.rest(alice, 'PUT', `/v1/vault/${seg}`, { fields: { password: 'pw' } }), `PUT /v1/vault/{name} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/vault/${seg}`), `DELETE /v1/vault/{name} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/vault/example.com/fields/${seg}`), `DELETE /v1/vault/{name}/fields/{field} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/caches/${seg}`), `DELETE /v1/caches/{name} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/webhooks/${seg}`), `DELETE /v1/webhooks/{id} ${tag}`);
    refused(t, await d.rest(alice, 'GET', `/v1/webhooks/${seg}/deliveries`), `GET /v1/webhooks/{id}/deliveries ${tag}`);
    refused(t, await d.rest(alice, 'GET', `/v1/crawls/${seg}`), `GET /v1/crawls/{id} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/crawls/${seg}`), `DELETE /v1/crawls/{id} ${tag}`);
    refused(t, await d.rest(alice, 'POST', `/v1/crawls/${seg}/cancel`), `POST /v1/crawls/{id}/cancel ${tag}`);
    refused(t, await d.rest(alice, 'GET', `/v1/tasks/${seg}`), `GET /v1/tasks/{id} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/tasks/${seg}`), `DELETE /v1/tasks/{id} ${tag}`);
    refused(t, await d.rest(alice, 'GET', `/v1/research/${seg}`), `GET /v1/research/{id} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/extractors/${seg}`), `DELETE /v1/extractors/{id} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/tabs/${seg}`), `DELETE /v1/tabs/{id} ${tag}`);
    refused(t, await d.rest(alice, 'DELETE', `/v1/files/${seg}`), `DELETE /v1/files/{name} ${tag}`, ['validation_error', 'not_found']);
    refused(t, await d.rest(undefined, 'POST', `/v1/inbox/sms/${seg}`, { text: 'code 123456' }, { Authorization: 'Bearer x' }), `POST /v1/inbox/sms/{inbox} ${tag}`, ['unauthorized', 'validation_error']);
    refused(t, await d.rest(admin, 'POST', '/v1/admin/users', { name: v }), `POST /v1/admin/users name ${tag}`);
  }
  const vault = await d.rest(alice, 'GET', '/v1/vault');
  t.equal(vault.status, 200);
  t.same(vault.json.entries ?? vault.json.vault ?? [], [], 'no vault entry was stored');
  t.equal(d.daemon.env.users.list().length, 1, 'no user was added');
});
