// Each built-in converter against documents built here with known text: order kept (pages, slides, sheets,
// rows, entries), quoting and markup handled, bad files failing cleanly with a code from the error table.
import t from 'tap';
import JSZip from 'jszip';
import { convertDocument, readSheetRows } from '../../../daemon/docs/index.js';
import { closeConverterThreads } from '../../../daemon/docs/pool.js';
import { detectKind } from '../../../daemon/docs/detect.js';
import { makeDocx, makePdf, makePptx, makeXlsx, makeZipBomb } from '../../fixtures/documents.js';

const cfg = { converterTimeoutMs: 120_000 };
t.teardown(closeConverterThreads);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return (e as { code?: string }).code ?? `uncoded: ${(e as Error).message}`;
  }
}

const order = (text: string, parts: string[]) => parts.map((p) => text.indexOf(p));
const ascending = (xs: number[]) => xs.every((x, i) => x >= 0 && (i === 0 || x > xs[i - 1]!));

t.test('PDF: every page, in order, one heading each', async (t) => {
  const bytes = await makePdf([['Alpha first page', 'alpha second line'], ['Beta second page'], ['Gamma third page']], 'Quarterly');
  const c = await convertDocument(cfg, { bytes, name: 'q.pdf' });
  t.equal(c.kind, 'pdf');
  t.equal(c.parts, 3);
  t.equal(c.title, 'Quarterly');
  t.ok(ascending(order(c.content, ['## Page 1', 'Alpha first page', 'alpha second line', '## Page 2', 'Beta second page', '## Page 3', 'Gamma third page'])), c.content);
  // Magic bytes find a PDF with no name and a wrong type.
  const blind = await convertDocument(cfg, { bytes, contentType: 'application/octet-stream' });
  t.equal(blind.kind, 'pdf');
});

t.test('Word: headings and paragraphs in order', async (t) => {
  const c = await convertDocument(cfg, { bytes: await makeDocx(['# Terms', 'First clause, with a comma', 'Second clause']), name: 'terms.docx' });
  t.equal(c.kind, 'docx');
  t.match(c.content, /^# Terms/);
  t.ok(ascending(order(c.content, ['# Terms', 'First clause, with a comma', 'Second clause'])));
});

t.test('Excel: a heading and a table per sheet, sheets in order, cells as people read them', async (t) => {
  const bytes = await makeXlsx([
    { name: 'Prices', rows: [['item', 'price'], ['Widget, large', 3.5], ['Pipe | fitting', 2], [new Date('2024-01-02T00:00:00Z'), 'dated']] },
    { name: 'Stock', rows: [['sku'], ['A-1']] },
  ]);
  const c = await convertDocument(cfg, { bytes, name: 'book.xlsx' });
  t.equal(c.parts, 2);
  t.ok(ascending(order(c.content, ['## Prices', '| item | price |', '| Widget, large | 3.5 |', '| Pipe \\| fitting | 2 |', '| 2024-01-02 | dated |', '## Stock', '| A-1 |'])), c.content);
});

t.test('PowerPoint: slides in the order the show lists them, with notes', async (t) => {
  // The fixture numbers slide files in reverse, so file order would put "Closing" first.
  const bytes = await makePptx([
    { title: 'Opening', body: ['Why we are here'], notes: 'Speak slowly' },
    { title: 'Middle', body: ['Numbers'] },
    { title: 'Closing', body: ['Thanks'], notes: 'Take questions' },
  ]);
  const c = await convertDocument(cfg, { bytes, name: 'deck.pptx' });
  t.equal(c.parts, 3);
  t.ok(ascending(order(c.content, ['## Slide 1: Opening', 'Why we are here', 'Speak slowly', '## Slide 2: Middle', '## Slide 3: Closing', 'Take questions'])), c.content);
  t.notMatch(c.content, /^\s*\d+\s*$/m, 'slide-number placeholders are left out');
});

t.test('CSV and TSV: quoted commas stay in their cell', async (t) => {
  const csv = await convertDocument(cfg, { bytes: Buffer.from('name,note\n"Smith, Jane","said ""hi"""\nLee,plain\n'), name: 'p.csv' });
  t.match(csv.content, /\| Smith, Jane \| said "hi" \|/);
  const tsv = await convertDocument(cfg, { bytes: Buffer.from('a\tb\n1,2\t3\n'), name: 'p.tsv' });
  t.match(tsv.content, /\| 1,2 \| 3 \|/);
});

t.test('feeds: one entry each with title, link, date and text without markup', async (t) => {
  const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
    <item><title>First post</title><link>http://news.test/1</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate><description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</description></item>
    <item><title>Second post</title><link>http://news.test/2</link><description>Plain</description></item></channel></rss>`;
  const c = await convertDocument(cfg, { bytes: Buffer.from(rss), contentType: 'application/rss+xml' });
  t.equal(c.kind, 'feed');
  t.equal(c.parts, 2);
  t.ok(ascending(order(c.content, ['## First post', 'Link: http://news.test/1', 'Date: Tue, 02 Jan 2024', 'Hello world', '## Second post'])), c.content);
  t.notMatch(c.content, /<b>|<p>/);
  const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><entry><title>Entry one</title><link href="http://a.test/e1"/><updated>2024-01-01T00:00:00Z</updated><content type="html">&lt;i&gt;styled&lt;/i&gt; text</content></entry></feed>`;
  const a = await convertDocument(cfg, { bytes: Buffer.from(atom), name: 'a.xml' });
  t.match(a.content, /## Entry one\nLink: http:\/\/a\.test\/e1\nDate: 2024-01-01T00:00:00Z\n\nstyled text/);
  const json = JSON.stringify({ version: 'https://jsonfeed.org/version/1.1', title: 'J', items: [{ id: '1', url: 'http://j.test/1', title: 'Json one', content_html: '<p>from <em>json</em></p>' }] });
  const j = await convertDocument(cfg, { bytes: Buffer.from(json), name: 'feed.json' });
  t.equal(j.kind, 'feed');
  t.match(j.content, /## Json one[\s\S]*from json/);
});

t.test('a feed cannot define entities: a DOCTYPE is dropped, nothing expands', async (t) => {
  const laughs = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "AAAAAAAAAA"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><rss version="2.0"><channel><title>x</title><item><title>&c;</title><description>d</description></item></channel></rss>`;
  const r = await convertDocument(cfg, { bytes: Buffer.from(laughs), name: 'l.rss' }).then((c) => c.content, (e) => `error ${e.code}`);
  t.notMatch(r, /AAAAAAAAAA/);
});

t.test('PowerPoint XML entities stay unexpanded', async (t) => {
  const good = await makePptx([{ title: 'Safe', body: ['body'] }]);
  const zip = await JSZip.loadAsync(good);
  const slide = Object.keys(zip.files).find((n) => /slides\/slide\d+\.xml$/.test(n))!;
  const xml = await zip.file(slide)!.async('string');
  zip.file(slide, xml.replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE x [<!ENTITY big "EXPANDEDEXPANDED">]>').replace('body', '&big; &amp; more'));
  const c = await convertDocument(cfg, { bytes: await zip.generateAsync({ type: 'nodebuffer' }), name: 'e.pptx' });
  t.notMatch(c.content, /EXPANDED/);
  t.match(c.content, /& more/, 'the predefined entities are still decoded');
});

t.test('HTML and text', async (t) => {
  const h = await convertDocument(cfg, { bytes: Buffer.from('<html><head><title>Doc</title></head><body><h1>Heading</h1><p>Para <a href="/x">link</a></p></body></html>'), name: 'page.html', url: 'http://site.test/dir/page.html' });
  t.equal(h.kind, 'html');
  t.match(h.content, /# Heading/);
  t.match(h.content, /\[link\]\(http:\/\/site\.test\/x\)/, 'links resolve against the document address');
  const txt = await convertDocument(cfg, { bytes: Buffer.from('\uFEFFjust words\nline two'), name: 'n.txt' });
  t.equal(txt.content, 'just words\nline two');
});

t.test('maxChars cuts and says so; format text drops the Markdown', async (t) => {
  const bytes = await makePdf([Array.from({ length: 30 }, (_, i) => `Line number ${i} of the long page`)]);
  const cut = await convertDocument(cfg, { bytes, name: 'l.pdf' }, { maxChars: 100 });
  t.equal(cut.content.length, 100);
  t.ok(cut.truncated);
  t.ok(cut.chars > 100);
  const whole = await convertDocument(cfg, { bytes, name: 'l.pdf' });
  t.notOk(whole.truncated);
  t.equal(whole.chars, whole.content.length);
  const text = await convertDocument(cfg, { bytes: await makeDocx(['# Title', 'Body']), name: 'd.docx' }, { format: 'text' });
  t.equal(text.content, 'Title\n\nBody');
  // A big sheet is counted past the budget without being built: the total still says how much there was.
  const rows = Array.from({ length: 3000 }, (_, i) => [`row ${i}`, i]);
  const sheet = await convertDocument(cfg, { bytes: await makeXlsx([{ name: 'Big', rows: [['name', 'n'], ...rows] }]), name: 'big.xlsx' }, { maxChars: 500 });
  t.ok(sheet.truncated);
  t.equal(sheet.content.length, 500);
  t.ok(sheet.chars > 40000, `counted ${sheet.chars}`);
});

t.test('bad documents fail cleanly with a code, and the threads keep working', async (t) => {
  for (const kind of ['docx', 'xlsx', 'pptx'] as const) {
    t.equal(await codeOf(convertDocument(cfg, { bytes: await makeZipBomb(kind), name: `bomb.${kind}` })), 'validation_error', `${kind} zip bomb`);
  }
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('%PDF-1.7\n1 0 obj garbage'), name: 'c.pdf' })), 'validation_error', 'corrupt PDF');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('PK\x03\x04 not a zip at all'), name: 'c.docx' })), 'validation_error', 'corrupt docx');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.alloc(0), name: 'e.pdf' })), 'validation_error', 'empty');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.alloc(15 * 1024 * 1024 + 1), name: 'big.txt' })), 'validation_error', 'over 15 MB');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('PK\x03\x04epub'), name: 'book.epub' })), 'not_configured', 'no converter reads epub here');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('PK\x03\x04epub'), name: 'book.epub' }, { converter: 'builtin' })), 'validation_error', 'builtin asked for a type it does not read');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('x'), name: 'a.txt' }, { converter: 'markitdown' })), 'not_configured', 'markitdown not set up');
  const after = await convertDocument(cfg, { bytes: Buffer.from('still fine'), name: 'ok.txt' });
  t.equal(after.content, 'still fine');
});

t.test('detection: extension, then Content-Type, then the bytes', async (t) => {
  t.equal((await detectKind(Buffer.from('a,b\n1,2\n'), 'x.csv')).kind, 'csv');
  t.equal((await detectKind(Buffer.from('a,b\n1,2\n'), undefined, 'text/csv; charset=utf-8')).kind, 'csv');
  t.equal((await detectKind(Buffer.from('<!doctype html><html><body>x</body></html>'))).kind, 'html');
  t.equal((await detectKind(Buffer.from('<?xml version="1.0"?><rss version="2.0"></rss>'), 'x.xml')).kind, 'feed');
  t.equal((await detectKind(await makeDocx(['x']), 'upload')).kind, 'docx', 'a docx named without extension is found by its bytes');
  const legacy = await detectKind(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...Array(600).fill(0)]), 'old.doc');
  t.equal(legacy.kind, undefined);
  t.equal(legacy.ext, 'doc', 'an old .doc keeps its extension for a sidecar');
});

t.test('rows: sheet by name, limit with the total, unknown sheet named', async (t) => {
  const bytes = await makeXlsx([{ name: 'First', rows: [['a'], ['b'], ['c']] }, { name: 'Second', rows: [['x', 'y'], ['1', '2'], ['3', '4']] }]);
  const first = await readSheetRows({ bytes, name: 'r.xlsx' });
  t.same(first, { sheets: ['First', 'Second'], sheet: 'First', rows: [['a'], ['b'], ['c']], total: 3, truncated: false });
  const second = await readSheetRows({ bytes, name: 'r.xlsx' }, { sheet: 'Second', limit: 2 });
  t.same(second.rows, [['x', 'y'], ['1', '2']]);
  t.equal(second.total, 3);
  t.ok(second.truncated);
  try {
    await readSheetRows({ bytes, name: 'r.xlsx' }, { sheet: 'Third' });
    t.fail('an unknown sheet must fail');
  } catch (e) {
    t.equal((e as { code: string }).code, 'not_found');
    t.notMatch((e as Error).message, /First|Second/, "sheet names are the document's words: not in the message");
    t.match((e as { pageText?: string }).pageText, /sheets: "First", "Second"/, 'they are its page text');
  }
  const csv = await readSheetRows({ bytes: Buffer.from('h1,h2\n"a, b",c\n'), name: 'q.csv' });
  t.same(csv.rows, [['h1', 'h2'], ['a, b', 'c']]);
  t.equal(await codeOf(readSheetRows({ bytes: Buffer.from('%PDF-1.4'), name: 'x.pdf' })), 'validation_error');
});
