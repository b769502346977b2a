/**
 * A crawl survives kill -9: the daemon runs as a child process, is killed mid-crawl with SIGKILL, started again
 * on the same data dir, and the run finishes from its stored queue with every page read once (only pages in
 * flight at the kill may be fetched twice, never stored twice).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCrawlSite } from '../fixtures/crawl-site.js';
import { childDaemon } from '../fixtures/child-daemon.js';

const PAGES = 60;
const CONCURRENCY = 2;


t.test('kill -9 mid-crawl, start again: the run finishes with every page once', async (t) => {
  const site = await startCrawlSite({ bulk: PAGES });
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-restart-'));
  t.teardown(async () => {
    await site.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const daemon = childDaemon(dataDir);
  const first = await daemon.serve();
  const started = await daemon.call(first.url, 'POST', '/v1/crawls', { startUrls: [`${site.url}/bulk/1`], mode: 'http', maxDepth: 20, maxPages: PAGES, delayMs: 50, concurrency: CONCURRENCY });
  t.equal(started.status, 201, JSON.stringify(started.json));
  const id = started.json.id as string;

  const bulkGets = () => site.requests.filter((r) => r.path.startsWith('/bulk/'));
  await site.waitFor(() => bulkGets().length >= 20, 60_000);
  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await exited;
  const atKill = bulkGets().length;
  t.ok(atKill < PAGES, `killed mid-crawl (${atKill} of ${PAGES} pages asked for)`);

  const second = await daemon.serve();
  t.teardown(() => {
    second.child.kill('SIGTERM');
  });
  // browser_crawl_status waits on the run's own events, up to 60 s a call.
  let state = 'running';
  for (let i = 0; i < 5 && state === 'running'; i++) {
    const s = await daemon.call(second.url, 'POST', '/v1/tools/browser_crawl_status', { id, timeoutS: 60, items: 0 });
    state = s.json.crawl.state;
  }
  t.equal(state, 'finished');
  const items = (await daemon.call(second.url, 'GET', `/v1/crawls/${id}/items?limit=500`)).json.items as { url: string; status: string }[];
  const paths = items.map((i) => new URL(i.url).pathname);
  t.equal(items.length, PAGES, 'one item per page');
  t.equal(new Set(paths).size, PAGES, 'no page stored twice');
  t.ok(items.every((i) => i.status === 'done'));
  t.same(new Set(paths), new Set(Array.from({ length: PAGES }, (_, i) => `/bulk/${i + 1}`)), 'no page lost');
  const counts = new Map<string, number>();
  for (const r of bulkGets()) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
  const twice = [...counts.values()].filter((n) => n > 1).length;
  t.ok(twice <= CONCURRENCY, `${twice} page(s) fetched twice: at most the ${CONCURRENCY} in flight at the kill`);
  const exit = new Promise((r) => second.child.once('exit', r));
  second.child.kill('SIGTERM');
  await exit;
});
