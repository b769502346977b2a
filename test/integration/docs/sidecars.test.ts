// The optional converters on their real wire formats (loopback stand-ins): auto sends a type we do not read to
// markitdown when set, else docling; an explicit choice is honoured; slow is timeout; unset is not_configured.
import t from 'tap';
import { convertDocument, convertersStatus } from '../../../daemon/docs/index.js';
import { closeConverterThreads } from '../../../daemon/docs/pool.js';
import { startFakeDocling, startFakeMarkitdown } from '../../fixtures/sidecars.js';

t.teardown(closeConverterThreads);

const codeOf = (p: Promise<unknown>) => p.then(() => 'no error', (e) => (e as { code?: string }).code ?? 'uncoded');

t.test('markitdown-mcp over Streamable HTTP with a data: URI', async (t) => {
  const md = await startFakeMarkitdown();
  t.teardown(md.close);
  const cfg = { markitdownUrl: md.url, converterTimeoutMs: 120_000 };
  const c = await convertDocument(cfg, { bytes: Buffer.from('epub words'), name: 'Book One.epub', contentType: 'application/epub+zip' });
  t.equal(c.converter, 'markitdown');
  t.equal(c.kind, 'epub');
  t.match(c.content, /# From markitdown\n\nBook One\.epub: epub words/);
  t.equal(md.received.length, 1);
  t.equal(md.received[0]!.mime, 'application/epub+zip');
  t.same(md.received[0]!.bytes, Buffer.from('epub words'));
  // A type we read stays built-in under auto; asked for by name, markitdown gets it.
  t.equal((await convertDocument(cfg, { bytes: Buffer.from('plain'), name: 'a.txt' })).converter, 'builtin');
  t.equal((await convertDocument(cfg, { bytes: Buffer.from('plain'), name: 'a.txt' }, { converter: 'markitdown' })).converter, 'markitdown');
  t.equal(await codeOf(convertDocument(cfg, { bytes: Buffer.from('x'), name: 'a.doc' }, { converter: 'docling' })), 'not_configured');
  t.same(convertersStatus(cfg).map((c) => [c.name, c.available]), [['builtin', true], ['markitdown', true], ['docling', false]]);
  md.delayMs = 1500;
  t.equal(await codeOf(convertDocument({ ...cfg, converterTimeoutMs: 300 }, { bytes: Buffer.from('x'), name: 'slow.epub' })), 'timeout');
});

t.test('docling-serve: multipart part files, Markdown from document.md_content', async (t) => {
  const dl = await startFakeDocling();
  t.teardown(dl.close);
  const cfg = { doclingUrl: dl.url, converterTimeoutMs: 120_000 };
  const c = await convertDocument(cfg, { bytes: Buffer.from('old word file'), name: 'memo.doc' });
  t.equal(c.converter, 'docling');
  t.match(c.content, /# From docling\n\nmemo\.doc: old word file/);
  t.equal(dl.received[0]!.name, 'memo.doc');
  t.same(dl.received[0]!.bytes, Buffer.from('old word file'));
  dl.delayMs = 1500;
  t.equal(await codeOf(convertDocument({ ...cfg, converterTimeoutMs: 300 }, { bytes: Buffer.from('x'), name: 'slow.doc' })), 'timeout');
});

t.test('auto prefers markitdown when both are set; a converter that is down is navigation_failed', async (t) => {
  const md = await startFakeMarkitdown();
  const dl = await startFakeDocling();
  t.teardown(async () => { await md.close(); await dl.close(); });
  const both = { markitdownUrl: md.url, doclingUrl: dl.url, converterTimeoutMs: 120_000 };
  t.equal((await convertDocument(both, { bytes: Buffer.from('x'), name: 'a.odt' })).converter, 'markitdown');
  t.equal((await convertDocument(both, { bytes: Buffer.from('x'), name: 'a.odt' }, { converter: 'docling' })).converter, 'docling');
  await dl.close();
  t.equal(await codeOf(convertDocument(both, { bytes: Buffer.from('x'), name: 'a.odt' }, { converter: 'docling' })), 'navigation_failed');
});
