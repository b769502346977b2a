// collect and scrollUntil on crawls: every page is read in the browser, each page's files are fetched by its
// own tab and stored once across the whole crawl, documents come back as Markdown, lists are scrolled before
// reading, images are captioned by a (loopback fake) model, and options the crawl cannot honour are refused
// before anything starts.
import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { makePdf, png } from '../fixtures/documents.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { endlessList } from '../fixtures/list-pages.js';

let stack: Stack;
let fake: FakeModels;

t.before(async () => {
  fake = await startFakeModels();
  stack = await startStack({ models: fake.config });
  const { site } = stack;
  const pdf = await makePdf([['Annual report zeta'], ['Second page eta']]);
  const serve = (type: string, body: Buffer | string) => (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': type }).end(body);
  site.route('/robots.txt', serve('text/plain', 'User-agent: *\nAllow: /\n'));
  site.route('/hub', html('<h1>Hub</h1><a href="/a">A</a> <a href="/b">B</a> <a href="/files/report.pdf">Report</a>'));
  site.route('/a', html('<h1>A</h1><a href="/files/report.pdf">the same report</a> <a href="/files/rates.csv">Rates</a>'));
  site.route('/b', endlessList(60));
  site.route('/files/report.pdf', serve('application/pdf', pdf));
  site.route('/files/rates.csv', serve('text/csv', 'rate,value\n"alpha, beta",3\n'));
  site.route('/gallery', html('<h1>Gallery</h1><img src="/files/kettle.png" width="120" height="80" alt="">'));
  site.route('/files/kettle.png', serve('image/png', png(120, 80)));
});
t.teardown(async () => {
  await stack.stop();
  await fake.close();
});

const userFiles = () => readdirSync(join(stack.d.dataDir, 'files', 'alice')).filter((n) => !n.startsWith('.')).sort();

async function crawl(args: Record<string, unknown>) {
  const started = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], delayMs: 0, ...args });
  if (started.status !== 200) return { started, items: [] as any[] };
  const id = started.json.crawl.id as string;
  await stack.d.daemon.features.crawls.waitWhileRunning('alice', id, 60_000);
  const items = (await stack.d.rest(stack.token, 'GET', `/v1/crawls/${id}/items?limit=50`)).json.items as any[];
  return { started, items, id };
}

t.test('collect on a crawl: files fetched per page, stored once across pages, documents as Markdown', async (t) => {
  const writesBefore = stack.site.writes().length;
  const { started, items, id } = await crawl({ collect: { documents: true }, maxDepth: 1 });
  t.equal(started.status, 200, JSON.stringify(started.json).slice(0, 300));
  t.equal((await stack.d.rest(stack.token, 'GET', `/v1/crawls/${id}`)).json.spec.mode, 'browser', 'a crawl that collects reads its pages in the browser');
  const byPath = (p: string) => items.find((i) => i.url === `${stack.site.url}${p}`);
  const hub = byPath('/hub');
  t.equal(hub?.via, 'browser');
  t.match(hub?.files, [{ type: 'pdf', status: 'stored', name: 'report.pdf', page: `${stack.site.url}/hub` }]);
  t.match(hub.files[0].markdown, /Annual report zeta[\s\S]*Second page eta/);
  const a = byPath('/a');
  t.match(a?.files, [{ type: 'pdf', status: 'existing', name: 'report.pdf' }, { type: 'csv', status: 'stored', name: 'rates.csv' }], 'the report found again is the one already stored');
  t.match(a.files[1].markdown, /\| alpha, beta \| 3 \|/);
  t.same(userFiles(), ['rates.csv', 'report.pdf'], 'each file once in the user files');
  t.equal(stack.site.writes().length, writesBefore, 'the crawl sent nothing but reads');
  const status = await stack.rest('browser_crawl_status', { id, items: 10 });
  t.match(status.json.text, /files \(1\):\n- report\.pdf \(pdf, \d+ bytes\)/);
  t.notOk(JSON.stringify(status.json.items).includes('Annual report zeta'), 'the tool answer carries sizes, not whole documents');
});

t.test('scrollUntil on a crawl: each list scrolled before its page is read', async (t) => {
  const { items } = await crawl({ startUrls: [`${stack.site.url}/b`], maxDepth: 0, scrollUntil: { item: 'li.it', noNewForMs: 800, maxScrolls: 100 } });
  const b = items[0];
  t.equal(b?.status, 'done', JSON.stringify(b).slice(0, 300));
  t.same(b.scroll.items, Array.from({ length: 60 }, (_, i) => `Item ${i + 1}`), 'every item of the endless list, in order');
  t.match(b.scroll.stoppedBecause, /^(end|no_new)$/);
  t.match(b.content, /Item 60/, 'the page read after scrolling holds what loaded');
});

t.test('collect.caption on a crawl: each image described by the model, under the crawl\'s caption budget', async (t) => {
  fake.script('openai', { text: 'A small grey kettle icon.', usage: { input: 800, output: 7 } });
  const sent = fake.requests.length;
  const { started, items } = await crawl({ startUrls: [`${stack.site.url}/gallery`], maxDepth: 0, collect: { images: true, caption: true } });
  t.equal(started.status, 200, JSON.stringify(started.json).slice(0, 300));
  const files = items[0]?.files as any[];
  t.match(files, [{ type: 'image', name: 'kettle.png', caption: 'A small grey kettle icon.' }]);
  t.equal(fake.requests.length - sent, 1, 'one provider request for the one image');
  t.match(JSON.stringify(fake.requests.at(-1)!.body), /data:image\/png;base64,/);
});

t.test('what a crawl cannot honour is refused before it starts', async (t) => {
  const before = (await stack.d.rest(stack.token, 'GET', '/v1/crawls')).json.crawls.length;
  const http = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], mode: 'http', collect: {} });
  t.equal(http.status, 400);
  t.match(http.json.error.message, /mode http/);
  const caption = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], collect: { images: true, caption: true, model: 'openai/nonesuch' } });
  t.equal(caption.status, 400, 'an unknown caption model refuses the crawl before it starts');
  const noImages = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], collect: { documents: true, caption: true } });
  t.equal(noImages.status, 400, 'caption without images');
  const scroll = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], scrollUntil: { count: 5 } });
  t.equal(scroll.status, 400, 'count needs item');
  const unknown = await stack.rest('browser_crawl', { startUrls: [`${stack.site.url}/hub`], collect: { pdfs: true } });
  t.equal(unknown.status, 400);
  t.equal((await stack.d.rest(stack.token, 'GET', '/v1/crawls')).json.crawls.length, before, 'no crawl was started');
});
