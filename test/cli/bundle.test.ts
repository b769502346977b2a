/**
 * The daemon as `npm start` runs it: bin/browserd.js picks the bundle `npm run build` made (no TypeScript loader at
 * run time), and the bundled daemon does real work on both of its bundled worker threads: a browser_read
 * and a crawl (HTML to Markdown thread) and a PDF conversion (converter thread). The suite's other tests run the sources.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSite, html } from '../fixtures/site.js';
import { makePdf } from '../fixtures/documents.js';

const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;
const bundle = new URL('../../bin/browserd.bundle.mjs', import.meta.url).pathname;

t.test('bin/browserd.js runs the bundle, and the bundled daemon reads pages and converts documents on its threads', async (t) => {
  t.ok(existsSync(bundle), 'npm run build made the bundle (npm test and npm run check build first)');
  const site = await startSite();
  t.teardown(() => site.close());
  site.route('/article', html('<h1>Bundled</h1><p>The daemon ran from its bundle and read this page.</p>', '', 'Article'));
  const pdf = await makePdf([['Quarterly report', 'Revenue grew by ten percent.']], 'Report');
  site.route('/report.pdf', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(pdf);
  });
  const data = mkdtempSync(join(tmpdir(), 'browserd-bundle-'));
  t.teardown(() => rmSync(data, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--data', data], {
    env: { ...process.env, BROWSERD_LOG_LEVEL: 'info', BROWSERD_ALLOW_PRIVATE_NETWORK: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  let out = '';
  child.stdout.setEncoding('utf8');
  // The log (stdout) says it listens and where the first user's credentials are.
  await new Promise<void>((resolve) => {
    const heard = (c: string) => {
      out += c;
      if (/"browserd listening"/.test(out) && /"first user created"/.test(out)) resolve();
    };
    child.stdout.on('data', heard);
    child.stderr.setEncoding('utf8').on('data', heard);
  });
  const listening = out.split('\n').find((l) => l.includes('"browserd listening"'));
  t.match(listening, /"bundled":true/, 'the bundle is what runs');
  const base = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(listening ?? '')?.[1];
  const file = /"credentials":"([^"]+)"/.exec(out)?.[1];
  const token = /^token=(bd_\S+)$/m.exec(readFileSync(file!, 'utf8'))?.[1];
  const tool = async (name: string, args: Record<string, unknown>) => {
    const r = await fetch(`${base}/v1/tools/${name}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(args) });
    return { status: r.status, json: (await r.json()) as any };
  };
  const read = await tool('browser_read', { urls: [`${site.url}/article`] });
  t.equal(read.status, 200, JSON.stringify(read.json));
  t.match(read.json.pages?.[0]?.markdown, /# Bundled\n\nThe daemon ran from its bundle and read this page\./);
  // A crawl turns each page into Markdown on the Markdown thread.
  const crawl = await tool('browser_crawl', { startUrls: [`${site.url}/article`], maxDepth: 0, mode: 'http', delayMs: 0 });
  t.equal(crawl.status, 200, JSON.stringify(crawl.json));
  const status = await tool('browser_crawl_status', { id: crawl.json.id, timeoutS: 60, items: 5 });
  t.equal(status.json.crawl?.state, 'finished', JSON.stringify(status.json));
  t.match(status.json.text, /The daemon ran from its bundle and read this page\./, 'the crawled page, in Markdown');
  const converted = await tool('browser_convert', { url: `${site.url}/report.pdf` });
  t.equal(converted.status, 200, JSON.stringify(converted.json));
  t.match(converted.json.conversion, { kind: 'pdf', converter: 'builtin' });
  t.match(converted.json.text, /Revenue grew by ten percent\./);
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'stops cleanly');
});
