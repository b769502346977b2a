/** Export encoders: JSONL, JSON and CSV carry the same items, CSV quotes by RFC 4180 and defuses formulas. */
import t from 'tap';
import { csvCell, encodeCsv, encodeExport, encodeJson, encodeJsonl } from '../../../daemon/crawl/export.js';
import { scrubDeep, scrubList, SECRET_HIDDEN } from '../../../daemon/call/redact.js';
import type { CrawlItem } from '../../../daemon/crawl/types.js';
import { csvRecordOf, csvRecords, parseCsv } from '../../fixtures/csv.js';

const items: CrawlItem[] = [
  {
    seq: 1, url: 'http://site.test/a?x=1,2', finalUrl: 'http://site.test/a', depth: 0, status: 'done', httpStatus: 200, via: 'http',
    title: 'Commas, "quotes" and more', content: '# Head\r\nline one\nline two, with "quotes"\n\nÜnïcödé 日本語 🚀',
    fields: { price: '12,50 €', tags: ['a', 'b,c', 'd"e'], nothing: null, obj: { k: 'v\nw' } }, linkCount: 3, at: '2026-11-23T23:00:00.000Z',
  },
  { seq: 2, url: 'http://site.test/private/x', depth: 1, status: 'blocked', error: 'robots.txt disallows it', at: '2026-11-23T23:00:01.000Z' },
  { seq: 3, url: 'http://site.test/f', depth: 1, status: 'failed', httpStatus: 500, error: 'HTTP 500', title: '=HYPERLINK("http://evil.test","x")', content: '-2+3', fields: { price: '@SUM(A1)', tags: [], nothing: '+1', obj: null }, at: '2026-11-23T23:00:02.000Z' },
];
const fieldNames = ['price', 'tags', 'nothing', 'obj'];
const join = (g: Iterable<string>) => [...g].join('');

t.test('JSONL: one item per line, each line parses back to its item', async (t) => {
  const text = join(encodeJsonl(items));
  const lines = text.split('\n');
  t.equal(lines.pop(), '', 'ends with a newline');
  t.equal(lines.length, items.length, 'line breaks inside content do not split an item');
  t.same(lines.map((l) => JSON.parse(l)), items);
});

t.test('JSON: one array of the items, also when empty', async (t) => {
  t.same(JSON.parse(join(encodeJson(items))), items);
  t.same(JSON.parse(join(encodeJson([]))), []);
});

t.test('CSV: RFC 4180 quoting; parsed back it equals the items', async (t) => {
  const text = join(encodeCsv(items, fieldNames));
  t.ok(text.endsWith('\r\n'));
  const rows = parseCsv(text);
  t.same(rows[0], ['seq', 'url', 'final_url', 'status', 'http_status', 'depth', 'title', 'content', 'error', 'at', ...fieldNames]);
  t.same(csvRecords(text), items.map((i) => csvRecordOf(i, fieldNames)));
  t.match(text, '"Commas, ""quotes"" and more"', 'a cell with a comma and quotes is quoted, quotes doubled');
  t.ok(text.includes('"[""a"",""b,c"",""d\\""e""]"'), 'a list is its JSON text, quoted');
  t.same(parseCsv(join(encodeCsv([], []))), [['seq', 'url', 'final_url', 'status', 'http_status', 'depth', 'title', 'content', 'error', 'at']], 'no items: the header alone');
});

t.test('CSV: a cell a spreadsheet would run as a formula gets a leading apostrophe', async (t) => {
  const rows = parseCsv(join(encodeCsv(items, fieldNames)));
  const third = rows[3]!;
  t.equal(third[6], `'=HYPERLINK("http://evil.test","x")`, 'title');
  t.equal(third[7], "'-2+3", 'content');
  t.equal(third[10], "'@SUM(A1)", 'a field');
  t.equal(third[12], "'+1");
  for (const start of ['=', '+', '-', '@', '\t', '\r']) t.ok(csvCell(`${start}1`).replace(/^"/, '').startsWith(`'${start}`), `${JSON.stringify(start)} is defused`);
  t.equal(csvCell(-5), '-5', 'numbers are ours, not text a page chose, and stay numbers');
  t.equal(csvCell('a=b'), 'a=b', 'only the first character counts');
});

t.test('a field named like a fixed column gets its own column', async (t) => {
  const rows = parseCsv(join(encodeCsv([{ ...items[0]!, fields: { title: 'from field' } }], ['title'])));
  t.equal(rows[0]!.at(-1), 'field.title');
  t.equal(rows[1]!.at(-1), 'from field');
  t.equal(rows[1]![6], items[0]!.title);
});

t.test('the three formats carry the same items', async (t) => {
  const jsonl = join(encodeExport('jsonl', items)).trim().split('\n').map((l) => JSON.parse(l));
  const json = JSON.parse(join(encodeExport('json', items)));
  const csv = csvRecords(join(encodeExport('csv', items, { fieldNames })));
  t.same(jsonl, json);
  t.same(csv, (json as CrawlItem[]).map((i) => csvRecordOf(i, fieldNames)));
});

t.test('exports hide the user\'s secrets in every string, in every format', async (t) => {
  const secret = 'hunter2 "pw"';
  const forms = scrubList([secret]);
  const leaky: CrawlItem = { ...items[0]!, title: `token ${secret}`, content: `a, ${secret}`, fields: { [secret]: [secret], k: { deep: secret } } };
  for (const format of ['jsonl', 'json', 'csv'] as const) {
    const text = join(encodeExport(format, [leaky], { fieldNames: ['k'], secretForms: forms }));
    t.notOk(text.includes('hunter2'), `${format} holds no secret`);
    t.ok(text.includes(SECRET_HIDDEN), `${format} marks where it was`);
  }
  t.same(scrubDeep({ a: ['x'] }, []), { a: ['x'] }, 'no secrets: unchanged');
});

t.test('an encoder reads items one at a time and closes the source when its reader stops', async (t) => {
  let made = 0;
  let closed = false;
  function* source(): Generator<CrawlItem> {
    try {
      for (let i = 1; i <= 1_000_000; i++) {
        made++;
        yield { seq: i, url: `http://site.test/${i}`, depth: 0, status: 'done', at: 'now' };
      }
    } finally {
      closed = true;
    }
  }
  for (const format of ['jsonl', 'json', 'csv'] as const) {
    made = 0;
    closed = false;
    const gen = encodeExport(format, source(), { secretForms: scrubList(['zzz-secret']) });
    let n = 0;
    for (const _ of gen) if (++n >= 10) break;
    t.ok(made <= 10, `${format}: read ${made} items for 10 pieces of output`);
    t.ok(closed, `${format}: the item source was closed`);
  }
});
