/**
 * The crawl routes on a real daemon with the crawl service replaced by a small in-memory one, so the REST layer
 * is tested on its own: ids, queries and cursors checked, the caller's id and nothing else handed to the
 * service, every format of a 5,000-item export equal to the items, vault values hidden. The real engine's runs
 * over these same routes are in crawls.test.ts.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { csvRecordOf, csvRecords } from '../fixtures/csv.js';
import { InvalidCursorError } from '../../storage/audit.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { CrawlAction } from '../../daemon/crawl/service.js';
import type { CrawlItem, CrawlRunInfo, ItemStatus } from '../../daemon/crawl/types.js';

const PASSWORD = 'Vault-Value-4471';
const N = 5000;
const ID = 'crawl_00112233aabbccdd';
const OTHER = 'crawl_ffeeddccbbaa0099';

/** What the service was asked, by whom: the proof that routes pass the caller's id. */
const calls: string[] = [];

function item(seq: number): CrawlItem {
  return {
    seq,
    url: `http://site.test/bulk/${seq}`,
    depth: Math.floor(Math.log2(seq)),
    status: seq % 10 === 0 ? 'failed' : 'done',
    ...(seq % 10 === 0 ? { httpStatus: 500, error: 'HTTP 500' } : { httpStatus: 200, title: seq === 7 ? '=cmd|"/c calc"!A1' : `Bulk ${seq}, "page"` }),
    content: `# Bulk ${seq}\n\nLine, with "quotes" — ünïcode ${seq === 3 ? `and the password ${PASSWORD} echoed` : ''}\r\n${'text '.repeat(50)}`,
    fields: { heading: `Bulk ${seq}`, kids: [`/bulk/${2 * seq}`, `/bulk/${2 * seq + 1}`] },
    at: new Date(Date.UTC(2026, 10, 23, 23, 0, 0, seq)).toISOString(),
  };
}

/** alice owns two runs; bob owns none. */
class FakeCrawls {
  runs = new Map<string, CrawlRunInfo>();
  constructor() {
    const base = { counters: { queued: 0, done: N - N / 10, failed: N / 10, blocked: 0 }, createdAt: '2026-11-23T23:00:00.000Z', updatedAt: '2026-11-23T23:10:00.000Z' };
    this.runs.set(`alice/${ID}`, { id: ID, name: `bulk with ${PASSWORD}`, state: 'running', ...base });
    this.runs.set(`alice/${OTHER}`, { id: OTHER, state: 'finished', ...base, createdAt: '2026-11-23T22:00:00.000Z' });
  }
  get(user: string, id: string) {
    calls.push(`get ${user} ${id}`);
    return this.runs.get(`${user}/${id}`);
  }
  spec(user: string, id: string) {
    return this.runs.has(`${user}/${id}`) ? ({ startUrls: ['http://site.test/bulk/1'], fields: { heading: 'h1', kids: { css: 'a', attr: 'href', all: true } } } as any) : undefined;
  }
  list(user: string, opts: { limit: number; cursor?: string }) {
    calls.push(`list ${user}`);
    const mine = [...this.runs.entries()].filter(([k]) => k.startsWith(`${user}/`)).map(([, v]) => v);
    const from = opts.cursor === undefined ? 0 : this.offset(user, opts.cursor);
    const runs = mine.slice(from, from + opts.limit);
    return { runs, ...(from + opts.limit < mine.length ? { next: `${user}:${from + opts.limit}` } : {}) };
  }
  async act(user: string, id: string, action: CrawlAction) {
    calls.push(`act ${user} ${id} ${action}`);
    const run = this.runs.get(`${user}/${id}`)!;
    if (action === 'resume' && run.state !== 'paused') throw new BrowserdError('validation_error', `the crawl is ${run.state}`, { next: 'Only a paused crawl resumes.' });
    run.state = action === 'pause' ? 'paused' : action === 'resume' ? 'running' : 'cancelled';
    return run;
  }
  /** A cursor of this fake names its user: one for another user is refused, as the real store's signature does. */
  private offset(user: string, cursor: string) {
    const m = /^([a-z]+):(\d+)$/.exec(cursor);
    if (!m || m[1] !== user) throw new InvalidCursorError();
    return Number(m[2]);
  }
  items(user: string, id: string, opts: { status?: ItemStatus; cursor?: string; limit: number }) {
    calls.push(`items ${user} ${id}`);
    const from = opts.cursor === undefined ? 0 : this.offset(user, opts.cursor);
    const out: CrawlItem[] = [];
    let i = from;
    for (const it of this.iterateItems(user, id, opts)) {
      if (i-- > 0) continue;
      out.push(it);
      if (out.length === opts.limit) break;
    }
    const next = from + out.length;
    return { items: out, ...(out.length === opts.limit && next < this.count(opts.status) ? { next: `${user}:${next}` } : {}) };
  }
  private count(status?: ItemStatus) {
    return status === 'failed' ? N / 10 : status === 'done' ? N - N / 10 : status ? 0 : N;
  }
  *iterateItems(user: string, id: string, opts: { status?: ItemStatus } = {}) {
    if (!this.runs.has(`${user}/${id}`)) return;
    for (let seq = 1; seq <= N; seq++) {
      const it = item(seq);
      if (!opts.status || it.status === opts.status) yield it;
    }
  }
  async delete(user: string, id: string) {
    calls.push(`delete ${user} ${id}`);
    this.runs.delete(`${user}/${id}`);
  }
  async waitWhileRunning(user: string, id: string) {
    return this.get(user, id)!;
  }
  resumeAll() {}
  async close() {}
}

let d: TestDaemon;
let alice: string;
let bob: string;
/** What the routes call on the service; each is the fake's while this file runs. */
const FAKED = ['get', 'spec', 'list', 'act', 'items', 'iterateItems', 'delete', 'waitWhileRunning'] as const;
const saved = new Map<string, unknown>();
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  const put = await d.rest(alice, 'PUT', '/v1/vault/site.test', { fields: { password: PASSWORD } });
  if (put.status !== 200) throw new Error(JSON.stringify(put.json));
  // The routes were handed the running service at start: its methods are stood in for, and put back after.
  const service = d.daemon.features.crawls as unknown as Record<string, unknown>;
  const fake = new FakeCrawls() as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of FAKED) {
    saved.set(name, service[name]);
    service[name] = fake[name].bind(fake);
  }
});
t.teardown(async () => {
  const service = d.daemon.features.crawls as unknown as Record<string, unknown>;
  for (const [name, method] of saved) service[name] = method;
  await d.stop();
});

async function download(token: string, path: string) {
  const res = await fetch(`${d.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function allItems(token: string, id: string, query = '') {
  const items: CrawlItem[] = [];
  let cursor: string | undefined;
  do {
    const r = await d.rest(token, 'GET', `/v1/crawls/${id}/items?limit=500${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(JSON.stringify(r.json));
    items.push(...r.json.items);
    cursor = r.json.cursor;
  } while (cursor);
  return items;
}

t.test('GET items pages whole items with the cursor, filtered by status; vault values hidden', async (t) => {
  const all = await allItems(alice, ID);
  t.equal(all.length, N);
  t.same(all.map((i) => i.seq), [...Array(N).keys()].map((k) => k + 1), 'every item once, in order');
  t.ok(all[1]!.content!.length > 250, 'whole content, not cut');
  t.notOk(JSON.stringify(all).includes(PASSWORD), 'a page that echoed a vault value shows it hidden');
  t.match(all[2]!.content, /\[secret hidden\]/);
  const failed = await allItems(alice, ID, '&status=failed');
  t.equal(failed.length, N / 10);
  t.ok(failed.every((i) => i.status === 'failed'));
  const run = await d.rest(alice, 'GET', `/v1/crawls/${ID}`);
  t.equal(run.status, 200);
  t.equal(run.json.id, ID);
  t.same(run.json.links, { self: `/v1/crawls/${ID}`, items: `/v1/crawls/${ID}/items`, export: `/v1/crawls/${ID}/export?format=jsonl` });
  t.ok(run.json.spec.fields, 'the spec comes with the run');
  t.notOk(JSON.stringify(run.json).includes(PASSWORD), 'the run\'s name is scrubbed too');
});

t.test(`the three exports of ${N} items stream and parse to the items GET returns`, async (t) => {
  const items = await allItems(alice, ID);
  const jsonl = await download(alice, `/v1/crawls/${ID}/export?format=jsonl`);
  t.equal(jsonl.status, 200);
  t.equal(jsonl.headers.get('content-type'), 'application/x-ndjson');
  t.equal(jsonl.headers.get('content-disposition'), `attachment; filename="${ID}.jsonl"`);
  t.equal(jsonl.headers.get('transfer-encoding'), 'chunked');
  t.same(jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l)), items);
  const json = await download(alice, `/v1/crawls/${ID}/export?format=json`);
  t.equal(json.headers.get('content-type'), 'application/json');
  t.equal(json.headers.get('content-disposition'), `attachment; filename="${ID}.json"`);
  t.same(JSON.parse(json.text), items);
  const csv = await download(alice, `/v1/crawls/${ID}/export?format=csv`);
  t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.equal(csv.headers.get('content-disposition'), `attachment; filename="${ID}.csv"`);
  t.ok(csv.text.startsWith('seq,url,final_url,status,http_status,depth,title,content,error,at,heading,kids\r\n'), 'a header with a column per field');
  t.same(csvRecords(csv.text), items.map((i) => csvRecordOf(i, ['heading', 'kids'])));
  t.ok(csv.text.includes(`'=cmd|""/c calc""!A1`), 'a formula title is defused');
  for (const text of [jsonl.text, json.text, csv.text]) t.notOk(text.includes(PASSWORD), 'no vault value in an export');
  const failed = await download(alice, `/v1/crawls/${ID}/export?format=jsonl&status=failed`);
  t.equal(failed.text.trimEnd().split('\n').length, N / 10);
});

t.test('bad ids, formats, statuses, limits and cursors are validation_errors with a next step', async (t) => {
  const cases: [string, string][] = [
    ['GET', '/v1/crawls/nope'],
    ['GET', '/v1/crawls/crawl_123/items'],
    ['GET', '/v1/crawls/CRAWL_00112233aabbccdd/export'],
    ['POST', '/v1/crawls/crawl_00112233AABBCCDD/pause'],
    ['DELETE', '/v1/crawls/%E0%A4%A'],
    ['GET', `/v1/crawls/${ID}/export?format=xml`],
    ['GET', `/v1/crawls/${ID}/export?format=`],
    ['GET', `/v1/crawls/${ID}/export?status=queued`],
    ['GET', `/v1/crawls/${ID}/items?status=DONE`],
    ['GET', `/v1/crawls/${ID}/items?limit=0`],
    ['GET', `/v1/crawls/${ID}/items?limit=501`],
    ['GET', `/v1/crawls/${ID}/items?limit=1e2`],
    ['GET', `/v1/crawls/${ID}/items?cursor=forged`],
    ['GET', '/v1/crawls?limit=-1'],
    ['GET', '/v1/crawls?cursor=bob:1'],
    ['GET', '/v1/crawls?cursor='],
    ['GET', `/v1/crawls/${ID}/items?cursor=`],
  ];
  for (const [method, path] of cases) {
    calls.length = 0;
    const r = await d.rest(alice, method, path);
    t.equal(r.status, 400, `${method} ${path}`);
    t.equal(r.json.error.code, 'validation_error', `${method} ${path}`);
    t.ok(r.json.error.next, `${method} ${path} has a next step`);
    t.notOk(calls.some((c) => c.startsWith('act') || c.startsWith('delete')), 'nothing changed');
  }
});

t.test('bob reaches none of alice\'s crawls on any route, and his cursor is not hers', async (t) => {
  calls.length = 0;
  for (const [method, path] of [
    ['GET', `/v1/crawls/${ID}`],
    ['POST', `/v1/crawls/${ID}/pause`],
    ['POST', `/v1/crawls/${ID}/resume`],
    ['POST', `/v1/crawls/${ID}/cancel`],
    ['DELETE', `/v1/crawls/${ID}`],
    ['GET', `/v1/crawls/${ID}/items`],
    ['GET', `/v1/crawls/${ID}/export?format=csv`],
  ] as const) {
    const r = await d.rest(bob, method, path);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.json.error.code, 'not_found');
    t.ok(r.json.error.next);
  }
  t.ok(calls.length > 0 && calls.every((c) => c.split(' ')[1] === 'bob'), 'the service was only ever asked about bob');
  const mine = await d.rest(alice, 'GET', '/v1/crawls?limit=1');
  const stolen = await d.rest(bob, 'GET', `/v1/crawls/${ID}/items?cursor=${encodeURIComponent('alice:500')}`);
  t.equal(stolen.status, 404, 'bob cannot even name the run');
  const list = await d.rest(bob, 'GET', `/v1/crawls?cursor=${encodeURIComponent(mine.json.cursor)}`);
  t.equal(list.status, 400, 'alice\'s list cursor is refused for bob');
  t.same((await d.rest(bob, 'GET', '/v1/crawls')).json.crawls, []);
});

t.test('list pages with a cursor; actions and delete answer the run and go to the service', async (t) => {
  const first = await d.rest(alice, 'GET', '/v1/crawls?limit=1');
  t.same(first.json.crawls.map((c: any) => c.id), [ID]);
  const second = await d.rest(alice, 'GET', `/v1/crawls?limit=1&cursor=${encodeURIComponent(first.json.cursor)}`);
  t.same(second.json.crawls.map((c: any) => c.id), [OTHER]);
  t.notOk(second.json.cursor, 'no cursor after the last page');
  const paused = await d.rest(alice, 'POST', `/v1/crawls/${ID}/pause`);
  t.equal(paused.status, 200);
  t.equal(paused.json.state, 'paused');
  t.equal((await d.rest(alice, 'POST', `/v1/crawls/${ID}/resume`)).json.state, 'running');
  const wrong = await d.rest(alice, 'POST', `/v1/crawls/${OTHER}/resume`);
  t.equal(wrong.status, 400, 'the service\'s refusal of a transition reaches the caller');
  t.equal(wrong.json.error.code, 'validation_error');
  t.equal((await d.rest(alice, 'POST', `/v1/crawls/${ID}/cancel`)).json.state, 'cancelled');
  const del = await d.rest(alice, 'DELETE', `/v1/crawls/${OTHER}`);
  t.same(del.json, { ok: true, id: OTHER, deleted: true });
  t.equal((await d.rest(alice, 'GET', `/v1/crawls/${OTHER}`)).status, 404);
});
