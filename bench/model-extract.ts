/**
 * Tokens sent per browser_extract_ai on a long article (about 80,000 characters, the facts in two sections of
 * sixty) against sending the whole page text, through the loopback fake provider answering in 500 ms. The fake
 * answers only with what it finds in the request, so "same data" means the picked chunks really held it.
 * Promise: the picked request is at most 0.3x the whole-page request, with the same data extracted.
 */
import { countTokens } from 'gpt-tokenizer';
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startSite, html } from '../test/fixtures/site.js';
import { startFakeModels, type RecordedRequest } from '../test/fixtures/fake-models.js';
import { extractFromPages } from '../daemon/models/extract.js';
import { openModelSession } from '../daemon/models/session.js';
import { now, printTable } from './lib.js';

const SECTIONS = 60;
const WORDS = 'river garden morning silver window lantern meadow harbour violin pebble orchard compass ribbon candle thunder valley marble feather glacier canyon'.split(' ');

/** Filler a BM25 query about prices and makers does not match: a fixed pseudo-random walk over neutral words. */
function filler(seed: number, chars: number): string {
  let x = seed * 7919 + 1;
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const w = WORDS[x % WORDS.length];
    out.push(w);
    n += w.length + 1;
  }
  return `${out.join(' ')}.`;
}

function longArticle(): string {
  const parts: string[] = ['<main><h1>The Blue Kettle, a long review</h1>'];
  for (let i = 1; i <= SECTIONS; i++) {
    parts.push(`<h2>Part ${i}</h2>`);
    if (i === 23) parts.push('<p>Specifications: the Blue Kettle costs 42.50 euros and its weight is 1.4 kilograms when empty.</p>');
    if (i === 47) parts.push('<p>Maker: the company that makes it is Acme Kitchen, a family firm in Lyon.</p>');
    parts.push(`<p>${filler(i, 650)}</p><p>${filler(i + 1000, 650)}</p>`);
  }
  parts.push('</main>');
  return html(parts.join('\n'), '', 'The Blue Kettle, a long review');
}

const schema = {
  type: 'object',
  properties: {
    price: { type: 'number', description: 'Price in euros' },
    weight: { type: 'number', description: 'Weight in kilograms' },
    maker: { type: 'string', description: 'The company that makes it' },
  },
  required: ['price', 'weight', 'maker'],
};

/** What a model could read from the request: only values whose words were sent. */
function answerFrom(req: RecordedRequest) {
  const text = req.bodyText;
  const price = /costs ([\d.]+) euros/.exec(text)?.[1];
  const weight = /weight is ([\d.]+) kilograms/.exec(text)?.[1];
  const maker = /makes it is ([A-Z]\w+ [A-Z]\w+)/.exec(text)?.[1];
  const chunkOf = (needle: string) => {
    const at = text.indexOf(needle);
    const heads = [...text.slice(0, at).matchAll(/\[chunk (c\d+)\]/g)];
    return heads.at(-1)?.[1] ?? 'c1';
  };
  return {
    json: {
      data: { ...(price ? { price: Number(price) } : {}), ...(weight ? { weight: Number(weight) } : {}), ...(maker ? { maker } : {}) },
      citations: [
        ...(price ? [{ field: 'price', chunk: chunkOf('costs'), quote: `costs ${price} euros` }] : []),
        ...(maker ? [{ field: 'maker', chunk: chunkOf('makes it is'), quote: maker }] : []),
      ],
    },
  };
}

export async function run(): Promise<void> {
  const fake = await startFakeModels();
  fake.delayMs = 500;
  fake.fallback = answerFrom;
  const site = await startSite();
  site.route('/long', longArticle());
  const d = await startTestDaemon({ models: fake.config });
  const rows: string[][] = [];
  let picked: { tokens: number; data: unknown; ms: number } | undefined;
  let whole: { tokens: number; data: unknown; ms: number } | undefined;
  let pageChars = 0;
  try {
    const token = await d.addUser('bench');
    const url = `${site.url}/long`;
    let before = fake.requests.length;
    let t0 = now();
    const r = await d.rest(token, 'POST', '/v1/extract', { url, schema });
    if (r.status !== 200) throw new Error(`POST /v1/extract: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    picked = { tokens: fake.requests.slice(before).reduce((n, q) => n + countTokens(q.bodyText), 0), data: r.json.data, ms: now() - t0 };

    // The same extraction with every chunk of the page sent: what a loop without chunk picking would cost.
    const read = await d.rest(token, 'POST', '/v1/tools/browser_read', { urls: [url], maxChars: 200000 });
    const page = read.json.pages[0];
    pageChars = page.markdown.length;
    before = fake.requests.length;
    t0 = now();
    const session = openModelSession({ env: d.daemon.env, user: 'bench', signal: new AbortController().signal });
    const all = await extractFromPages(session, [{ url: page.url, title: page.title, markdown: page.markdown }], { schema }, Number.MAX_SAFE_INTEGER);
    whole = { tokens: fake.requests.slice(before).reduce((n, q) => n + countTokens(q.bodyText), 0), data: all.data, ms: now() - t0 };
  } finally {
    await d.stop();
    await site.close();
    await fake.close();
  }
  const same = JSON.stringify(picked.data) === JSON.stringify(whole.data);
  const ratio = picked.tokens / whole.tokens;
  rows.push(['chunks picked (browser_extract_ai)', String(picked.tokens), `${(picked.ms / 1000).toFixed(2)} s`, JSON.stringify(picked.data)]);
  rows.push(['whole page text', String(whole.tokens), `${(whole.ms / 1000).toFixed(2)} s`, JSON.stringify(whole.data)]);
  printTable(
    `Tokens sent per extract on a long article (${pageChars} characters of Markdown, ${SECTIONS} sections)`,
    ['request', 'tokens sent', 'time', 'data extracted'],
    rows,
    [
      `picked / whole = ${ratio.toFixed(3)}x (promise: <= 0.3x) — ${ratio <= 0.3 ? 'met' : 'NOT MET'}; same data: ${same ? 'yes' : 'NO'}.`,
      'Tokens are gpt-tokenizer counts of the provider request bodies; the fake answers in 500 ms with only the values it finds in the request.',
    ],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
