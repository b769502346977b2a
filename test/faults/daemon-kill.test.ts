/**
 * kill -9 of the daemon in the middle of a stream of writes. The daemon runs as a child process (`browserd serve`)
 * and is hammered with acknowledged writes (vault saves, webhook registrations and deletes, tab opens, and the
 * audit entry every tool call writes, crawl starts); it is killed at a different moment each round and started
 * again on the same data dir. Then LMDB opens, every write the client saw a 2xx for is there, and every record
 * reads back whole through the API.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { childDaemon } from '../fixtures/child-daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-faults-'));
const data = join(root, 'data');
let site: FixtureSite;
t.before(async () => {
  site = await startSite();
  site.route('/page', html('<h1>a page to crawl</h1>'));
});
t.teardown(async () => {
  await site.close();
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

// The stream starts more crawls than one user may keep running by default (4): the quota is not what is tested here.
const d0 = childDaemon(data, { BROWSERD_MAX_CRAWLS_PER_USER: '1000' });
const serve = d0.serve;
const call = d0.call;

/** What the client was told was stored. */
const acked = { vault: new Map<string, string>(), webhooks: new Map<string, string>(), audited: new Set<string>(), tabs: new Set<string>(), crawls: new Map<string, string>(), deletedWebhooks: new Set<string>() };
let n = 0;
const ackCount = () => acked.vault.size + acked.webhooks.size + acked.audited.size + acked.tabs.size + acked.crawls.size;
/** Resolves once `count` writes in all were acknowledged: the kill lands in the middle of the stream. */
let onAck: (() => void) | undefined;

/** One writer: writes one after another until the daemon stops answering. */
async function writer(url: string, kind: number) {
  for (;;) {
    const i = ++n;
    try {
      if (kind === 0) {
        const name = `site-${i}.test`;
        const loginUrl = `https://${name}/login`;
        const r = await call(url, 'PUT', `/v1/vault/${name}`, { loginUrl, fields: { username: `user-${i}`, password: `pw-${i}-${'x'.repeat(200)}` } });
        if (r.status >= 200 && r.status < 300) acked.vault.set(name, loginUrl);
        else throw new Error(`vault save: ${r.status} ${JSON.stringify(r.json)}`);
      } else if (kind === 1 && acked.webhooks.size >= 15) {
        // A user may have 20 receivers: past 15, delete one. Until its delete is acknowledged it may or may not be
        // gone, so it is checked neither way; once acknowledged, it must stay gone.
        const [id] = acked.webhooks.keys();
        acked.webhooks.delete(id!);
        const r = await call(url, 'DELETE', `/v1/webhooks/${id}`);
        if (r.status === 200) acked.deletedWebhooks.add(id!);
        else throw new Error(`webhook delete: ${r.status} ${JSON.stringify(r.json)}`);
      } else if (kind === 1) {
        const hook = `http://127.0.0.1:9/hook-${i}`;
        const r = await call(url, 'POST', '/v1/webhooks', { url: hook, events: ['monitor.changed'] });
        if (r.status >= 200 && r.status < 300) acked.webhooks.set(r.json.id, hook);
        else throw new Error(`webhook: ${r.status} ${JSON.stringify(r.json)}`);
      } else if (kind === 4) {
        // A crawl start stores its run and queue before it answers; the crawl itself reads one fixture page.
        if (acked.crawls.size >= 4) return;
        const start = `${site.url}/page?n=${i}`;
        const r = await call(url, 'POST', '/v1/crawls', { startUrls: [start], maxPages: 1, maxDepth: 0 });
        if (r.status === 201) acked.crawls.set(r.json.id, start);
        else throw new Error(`crawl start: ${r.status} ${JSON.stringify(r.json)}`);
      } else if (kind === 3) {
        // Tabs need the user's Chromium, which dies with the daemon (its CDP pipe closes) and starts again on use.
        if (acked.tabs.size >= 60) return; // well under the per-user cap of 100
        const r = await call(url, 'POST', '/v1/tabs', { url: 'about:blank' });
        if (r.status === 201) acked.tabs.add(r.json.tab);
        else throw new Error(`tab open: ${r.status} ${JSON.stringify(r.json)}`);
      } else {
        // A tool call that needs no browser; its audit entry is written before the answer.
        const r = await call(url, 'POST', '/v1/tools/browser_close_tab', { tab: `t${900000 + i}` });
        if (r.status === 404) acked.audited.add(`t${900000 + i}`);
        else throw new Error(`tool call: ${r.status} ${JSON.stringify(r.json)}`);
      }
    } catch (e) {
      if (e instanceof TypeError) return; // fetch failed: the daemon died under this request, never acknowledged
      throw e;
    }
    onAck?.();
  }
}

async function auditTabs(url: string): Promise<Set<string>> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const r = await call(url, 'GET', `/v1/audit?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`audit: ${JSON.stringify(r.json)}`);
    for (const e of r.json.entries) if (typeof e.tab === 'string') seen.add(e.tab);
    cursor = r.json.cursor;
    if (!cursor || !r.json.entries.length) return seen;
  }
}

t.test('every acknowledged write survives a kill -9 of the daemon, whole, over several kills at different moments', async (t) => {
  let d = await serve();
  // A failed round must not leave its daemon (and that daemon's Chromium) running after the file ends.
  t.teardown(() => {
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
  });
  // Each round kills after a different number of acknowledged writes (more writes under way each time).
  // The last round waits for tab opens in particular: the browser's start makes them the slowest writes.
  for (const [round, more, count] of [[1, 3, ackCount], [2, 40, ackCount], [3, 100, ackCount], [4, 5, () => acked.tabs.size]] as const) {
    const target = count() + more;
    const reached = new Promise<void>((r) => (onAck = () => count() >= target && r()));
    // A writer that stops (refused, or its kind done) ends; the round must not wait past all of them, nor forever.
    const ended = Promise.all([0, 1, 2, 3, 4, 0, 1, 2].map((k) => writer(d.url, k).then(() => undefined, (e: Error) => e)));
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      reached.then(() => 'reached'),
      ended.then(() => 'every writer stopped'),
      new Promise<string>((r) => (timer = setTimeout(() => r('90 s passed'), 90_000))),
    ]);
    clearTimeout(timer);
    if (outcome !== 'reached') t.fail(`round ${round}: ${outcome} before ${more} more writes were acknowledged (${count()} of ${target}; vault ${acked.vault.size}, webhooks ${acked.webhooks.size}, calls ${acked.audited.size}, tabs ${acked.tabs.size}, crawls ${acked.crawls.size}); the daemon said: ${d.output().slice(-3000)}`);
    // (A daemon that died by itself has already exited: there is no exit left to wait for.)
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGKILL');
      await once(d.child, 'exit');
    }
    const refused = (await ended).filter((e) => e !== undefined).map((e) => e.message);
    t.same(refused, [], `round ${round}: no write was refused`);
    onAck = undefined;
    if (outcome !== 'reached') break;

    const t0 = Date.now();
    d = await serve();
    t.comment(`round ${round}: restarted in ${Date.now() - t0} ms`);
    const vault = await call(d.url, 'GET', '/v1/vault');
    t.equal(vault.status, 200, `round ${round}: the store opens and the vault lists`);
    const entries = new Map<string, any>(vault.json.entries.map((e: any) => [e.name, e]));
    const missingVault = [...acked.vault].filter(([name, loginUrl]) => entries.get(name)?.loginUrl !== loginUrl || !entries.get(name)?.fields?.includes('password'));
    t.same(missingVault, [], `round ${round}: all ${acked.vault.size} acknowledged vault saves are there, whole`);
    const hooks = await call(d.url, 'GET', '/v1/webhooks');
    const byId = new Map<string, any>(hooks.json.webhooks.map((h: any) => [h.id, h]));
    const missingHooks = [...acked.webhooks].filter(([id, url]) => byId.get(id)?.url !== url);
    t.same(missingHooks, [], `round ${round}: all ${acked.webhooks.size} acknowledged webhook registrations are there`);
    t.same([...acked.deletedWebhooks].filter((id) => byId.has(id)), [], `round ${round}: none of ${acked.deletedWebhooks.size} acknowledged deletes came back`);
    const tabs = await call(d.url, 'GET', '/v1/tabs');
    const tabIds = new Set(tabs.json.tabs.map((x: any) => x.id));
    t.same([...acked.tabs].filter((id) => !tabIds.has(id)), [], `round ${round}: all ${acked.tabs.size} acknowledged tabs are listed under their ids`);
    const crawlsLost: string[] = [];
    for (const [id, start] of acked.crawls) {
      const c = await call(d.url, 'GET', `/v1/crawls/${id}`);
      if (c.status !== 200 || !JSON.stringify(c.json).includes(start)) crawlsLost.push(`${id}: ${c.status}`);
    }
    t.same(crawlsLost, [], `round ${round}: all ${acked.crawls.size} acknowledged crawl starts are there with their start page`);
    const audited = await auditTabs(d.url);
    const missingAudit = [...acked.audited].filter((tab) => !audited.has(tab));
    t.same(missingAudit, [], `round ${round}: all ${acked.audited.size} acknowledged calls have their audit entry`);
    // Registrations that landed without their answer count toward the user's 20 too: clear them, so the next
    // round starts from the acknowledged ones alone and stays under the cap (the writers stop adding at 15).
    for (const id of byId.keys()) {
      if (acked.webhooks.has(id)) continue;
      const r = await call(d.url, 'DELETE', `/v1/webhooks/${id}`);
      t.equal(r.status, 200, `round ${round}: an unacknowledged registration ${id} can be deleted`);
    }
  }
  t.ok(acked.vault.size > 0 && acked.webhooks.size > 0 && acked.audited.size > 0 && acked.tabs.size > 0, 'every kind of write was acknowledged at least once');
  d.child.kill('SIGTERM');
  await once(d.child, 'exit');
});
