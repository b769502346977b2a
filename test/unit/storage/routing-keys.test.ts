/**
 * Routing keys: every user has one, every token and link of theirs starts with it (what a fleet's router reads),
 * it survives a token's replacement, users from before keys draw one, and a share link whose key was swapped
 * for another user's does not open.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { UserStore } from '../../../storage/users.js';
import { ShareLinks } from '../../../storage/share-links.js';
import { HandoffStore } from '../../../storage/handoffs.js';
import { ROUTING_KEY_SHAPE, newRoutingKey } from '../../../storage/routing-key.js';
import { LiveLinks } from '../../../daemon/live/links.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-routing-'));
const db = openDb(join(root, 'data'));
const users = new UserStore(db);
t.teardown(async () => {
  await db.close();
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

t.test('keys are drawn, well formed and distinct', async (t) => {
  const keys = new Set(Array.from({ length: 2000 }, newRoutingKey));
  t.equal(keys.size, 2000, 'no two of 2,000 alike');
  t.ok([...keys].every((k) => ROUTING_KEY_SHAPE.test(k)), 'ten characters of base32, no dot, underscore or slash');
});

t.test("a user's token carries their key, and a new token keeps it", async (t) => {
  const { user, token } = await users.add('alice');
  t.match(user.key, ROUTING_KEY_SHAPE);
  t.equal(token.slice(0, 14), `bd_${user.key}.`, 'bd_<key>.<secret>');
  t.equal(users.authenticate(token)?.id, 'alice', 'and it authenticates');
  const next = await users.replaceToken('alice');
  t.equal(next.slice(0, 14), `bd_${user.key}.`, 'the replacement carries the same key');
  t.notOk(users.authenticate(token), 'the old token is refused');
  t.equal(users.authenticate(`bd_${newRoutingKey()}.${next.slice(14)}`), undefined, 'the secret under another key is a different token');
});

t.test('a user moved in keeps the key it had', async (t) => {
  const key = newRoutingKey();
  const { token } = await users.add('moved', key);
  t.equal(users.routingKey('moved'), key);
  t.ok(token.startsWith(`bd_${key}.`));
});

t.test('users from before keys draw one: at start, or with their next token', async (t) => {
  // A record as an older browserd wrote it.
  await users.add('old');
  const { key: _k, ...older } = users.get('old')!;
  await db.users.put('old', older);
  t.equal(users.routingKey('old'), undefined);
  await users.ensureRoutingKeys();
  t.match(users.routingKey('old'), ROUTING_KEY_SHAPE, 'drawn at start');
  await db.users.put('old', older);
  const token = await users.replaceToken('old');
  t.equal(token.slice(0, 14), `bd_${users.routingKey('old')}.`, 'or with a new token, which carries it');
});

t.test("links start with the user's key", async (t) => {
  const key = users.routingKey('alice')!;
  const live = new LiveLinks(() => 'http://h', undefined, (u) => users.routingKey(u));
  const made = live.create('alice', 't1', 'view');
  t.ok(made.url.startsWith(`http://h/live/${key}.`), 'live link');
  t.equal(live.lookup(made.token)?.tabId, 't1', 'and it opens');
  const handoff = await new HandoffStore(db).create({ user: 'alice', tab: 't1', reason: 'captcha', message: 'm', createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), capAt: new Date(Date.now() + 60_000).toISOString() });
  t.ok(handoff.token.startsWith(`${key}.`), 'hand-off page token');
  t.equal(new HandoffStore(db).byToken(handoff.token)?.id, handoff.record.id, 'and it opens');
});

t.test("a share link opens under its user's key only", async (t) => {
  const links = new ShareLinks(join(root, 'data'));
  const keyOf = (u: string) => users.routingKey(u);
  const payload = { u: 'alice', f: 'report.pdf', h: 'ab'.repeat(32), e: Math.floor(Date.now() / 1000) + 60 };
  const token = links.make(payload, keyOf('alice'));
  t.ok(token.startsWith(`${keyOf('alice')}.`));
  t.same(links.verify(token, keyOf), payload, 'opens');
  t.equal(links.verify(`${keyOf('moved')}.${token.split('.').slice(1).join('.')}`, keyOf), undefined, "another user's key in front: refused");
  t.equal(links.verify(`NOTAKEY123.${token.split('.').slice(1).join('.')}`, keyOf), undefined, 'a malformed key: refused');
  t.same(links.verify(token.split('.').slice(1).join('.'), keyOf), payload, 'a link from before keys (none in front) still opens');
});
