// maxChars: cut at a block boundary, say so, and say how much was left out.
import t from 'tap';
import { htmlToMarkdown } from '../../../daemon/read/markdown.js';

const URL = 'https://example.com/';
const page = (body: string, maxChars?: number) =>
  htmlToMarkdown(`<body>${body}</body>`, URL, { mode: 'page', maxChars });

const BODY = '<h1>Title</h1><p>First paragraph here.</p><p>Second paragraph, a bit longer than the first.</p><p>Third.</p>';

t.test('no cut when the text fits', async (t) => {
  const full = page(BODY).markdown;
  t.equal(page(BODY, full.length).markdown, full);
  t.notMatch(page(BODY, 10_000).markdown, /Cut at/);
});

t.test('cuts between blocks and reports what was left out', async (t) => {
  const full = page(BODY).markdown;
  const shown = '# Title\n\nFirst paragraph here.';
  // Room for two blocks and part of the third: the third is not split.
  const r = page(BODY, shown.length + 10);
  t.equal(r.markdown, `${shown}\n\n[Cut at ${shown.length + 10} characters: ${full.length - shown.length} more characters left out.]`);
});

t.test('a table too big for the room is cut between rows, header kept', async (t) => {
  const rows = Array.from({ length: 50 }, (_, i) => `<tr><td>${i}</td><td>row ${i}</td></tr>`).join('');
  const html = `<p>Intro.</p><table><tr><th>n</th><th>label</th></tr>${rows}</table>`;
  const full = page(html).markdown;
  const r = page(html, 120);
  const [content, note] = r.markdown.split('\n\n[Cut at ');
  t.ok(content.length <= 120);
  t.equal(
    content,
    'Intro.\n\n| n | label |\n| --- | --- |\n| 0 | row 0 |\n| 1 | row 1 |\n| 2 | row 2 |\n| 3 | row 3 |\n| 4 | row 4 |\n| 5 | row 5 |', // 119 chars
  );
  t.equal(note, `120 characters: ${full.length - content.length} more characters left out.]`);
});

t.test('a cut code block is closed again', async (t) => {
  const code = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
  const r = page(`<pre><code>${code}</code></pre>`, 40);
  t.equal(r.markdown.split('\n\n[Cut at')[0], '```\nline 0\nline 1\nline 2\nline 3\n```');
});

t.test('one huge paragraph is cut at a word', async (t) => {
  const r = page('<p>' + 'word '.repeat(100) + '</p>', 23);
  t.equal(r.markdown.split('\n\n')[0], 'word word word word');
  t.match(r.markdown, /\[Cut at 23 characters: \d+ more characters left out\.\]$/);
});

t.test('links are counted in what is shown', async (t) => {
  const html = Array.from({ length: 10 }, (_, i) => `<p><a href="/${i}">link ${i}</a> <img src="/i.png" alt="pic"></p>`).join('');
  const all = page(html);
  t.equal(all.links, 10);
  const cut = page(html, 150);
  t.ok(cut.links > 0 && cut.links < 10);
  t.equal(cut.links, (cut.markdown.match(/\[link \d\]/g) ?? []).length);
});
