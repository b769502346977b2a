// Exact Markdown for small HTML cases of the own DOM walk (page mode).
import t from 'tap';
import { htmlToMarkdown } from '../../../daemon/read/markdown.js';

const URL = 'https://example.com/docs/guide/page.html';
const md = (body: string, url = URL) => htmlToMarkdown(`<html><body>${body}</body></html>`, url, { mode: 'page' }).markdown;

t.test('headings, paragraphs, emphasis and whitespace', async (t) => {
  t.equal(
    md(`<h1>  Title </h1><h2>Sub <em>title</em></h2><h6>Six</h6>
        <p>  Some   <strong>bold</strong>,
        <em>italic </em>and <del>gone</del> text. </p><p>Line one<br>Line two</p>`),
    '# Title\n\n## Sub *title*\n\n###### Six\n\nSome **bold**, *italic* and ~~gone~~ text.\n\nLine one\nLine two',
  );
});

t.test('at most one blank line in a row', async (t) => {
  const out = md('<p>a</p><div></div><div>  </div><p>b<br><br><br><br>c</p><hr><p>d</p>');
  t.equal(out, 'a\n\nb\n\nc\n\n---\n\nd');
  t.notMatch(out, /\n\n\n/);
});

t.test('relative links made absolute; javascript links keep their text', async (t) => {
  const r = htmlToMarkdown(
    `<p><a href="../api/">API</a>, <a href="/root">root</a>, <a href="#top">top</a>,
     <a href="other.html?q=a b">spaced</a>, <a href="javascript:void(0)">menu</a>,
     <a href="mailto:me@example.com">mail</a>, <a href="/x"><img src="/i.png"></a>, <a href="/y"> </a>.</p>`,
    URL,
    { mode: 'page' },
  );
  t.equal(
    r.markdown,
    '[API](https://example.com/docs/api/), [root](https://example.com/root), ' +
      '[top](https://example.com/docs/guide/page.html#top), ' +
      '[spaced](https://example.com/docs/guide/other.html?q=a%20b), menu, [mail](mailto:me@example.com), , .',
  );
  t.equal(r.links, 5);
});

t.test('<base href> is honoured', async (t) => {
  const r = htmlToMarkdown('<html><head><base href="/v2/"></head><body><a href="start">Start</a></body></html>', URL, {
    mode: 'page',
  });
  t.equal(r.markdown, '[Start](https://example.com/v2/start)');
});

t.test('images only with alt text, never data: URIs', async (t) => {
  t.equal(
    md(`<p><img src="a.png" alt="A [chart]"> <img src="b.png"> <img src="c.png" alt="">
        <img src="data:image/png;base64,AAAA" alt="inline"> <img data-src="/lazy.jpg" alt="Lazy"></p>`),
    '![A \\[chart\\]](https://example.com/docs/guide/a.png) ![Lazy](https://example.com/lazy.jpg)',
  );
  t.equal(md('<a href="/home"><img src="/logo.png" alt="Home"></a>'), '[![Home](https://example.com/logo.png)](https://example.com/home)');
});

t.test('nested and ordered lists', async (t) => {
  t.equal(
    md(`<ul>
      <li>One</li>
      <li>Two
        <ol><li>Two.a</li><li>Two.b<ul><li>deep</li></ul></li></ol>
      </li>
      <li><p>Three</p><p>More three</p></li>
    </ul>
    <ol start="9"><li>nine</li><li>ten<ul><li>x</li></ul></li></ol>`),
    [
      '- One',
      '- Two',
      '  1. Two.a',
      '  2. Two.b',
      '     - deep',
      '- Three',
      '',
      '  More three',
      '',
      '9. nine',
      '10. ten',
      '    - x',
    ].join('\n'),
  );
});

t.test('a list nested directly in a list belongs to the item before it', async (t) => {
  t.equal(md('<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>'), '- a\n  - b\n- c');
});

t.test('tables cell for cell', async (t) => {
  t.equal(
    md(`<table>
      <caption>Prices</caption>
      <thead><tr><th>Plan</th><th>Price</th><th>Notes</th></tr></thead>
      <tbody>
        <tr><td>Basic</td><td>$5</td><td>a | b</td></tr>
        <tr><td><a href="/pro">Pro</a></td><td><code>$10</code></td><td>line 1<br>line 2</td></tr>
        <tr><td></td><td></td><td></td></tr>
        <tr><td>Max</td><td colspan="2">Ask us</td></tr>
      </tbody>
    </table>`),
    [
      'Prices',
      '',
      '| Plan | Price | Notes |',
      '| --- | --- | --- |',
      '| Basic | $5 | a \\| b |',
      '| [Pro](https://example.com/pro) | `$10` | line 1<br>line 2 |',
      '| Max | Ask us | Ask us |',
    ].join('\n'),
  );
});

t.test('table without <th> uses the first row as header', async (t) => {
  t.equal(
    md('<table><tr><td>Name</td><td>Age</td></tr><tr><td>Ann</td><td>31</td></tr><tr><td>Bo</td></tr></table>'),
    '| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bo |  |',
  );
});

t.test('rowspan and multi-row headers', async (t) => {
  t.equal(
    md(`<table>
      <tr><th rowspan="2">Region</th><th colspan="2">Q1</th></tr>
      <tr><th>Jan</th><th>Feb</th></tr>
      <tr><td rowspan="2">North</td><td>1</td><td>2</td></tr>
      <tr><td>3</td><td>4</td></tr>
    </table>`),
    [
      '| Region | Q1 / Jan | Q1 / Feb |',
      '| --- | --- | --- |',
      '| North | 1 | 2 |',
      '| North | 3 | 4 |',
    ].join('\n'),
  );
});

t.test('layout tables are not data tables', async (t) => {
  t.equal(md('<table><tr><td><h2>Menu</h2><p>Welcome</p></td></tr></table>'), '## Menu\n\nWelcome');
  t.equal(
    md('<table role="presentation"><tr><td>Left</td><td>Right</td></tr></table>'),
    'Left\n\nRight',
  );
});

t.test('code blocks and inline code', async (t) => {
  t.equal(
    md(`<pre><code class="language-js">const a = 1;

if (a) {
  log("\`\`\`");
}</code></pre><p>Use <code>npm i</code> or <kbd>Ctrl</kbd>+<kbd>C</kbd>; <code>a\`b</code>.</p>`),
    '````js\nconst a = 1;\n\nif (a) {\n  log("```");\n}\n````\n\nUse `npm i` or `Ctrl`+`C`; ``a`b``.',
  );
});

t.test('blockquotes', async (t) => {
  t.equal(md('<blockquote><p>First</p><p>Second <em>line</em></p></blockquote>'), '> First\n>\n> Second *line*');
});

t.test('text that looks like Markdown structure stays text', async (t) => {
  t.equal(md('<p># not a heading</p><p>1. not a list</p><p>- nor this</p>'), '\\# not a heading\n\n1\\. not a list\n\n\\- nor this');
});

t.test('scripts, styles and form controls never show; chrome stays in page mode', async (t) => {
  t.equal(
    md(`<script>var x = 1;</script><style>p{}</style><noscript>Enable JS</noscript>
        <nav><a href="/">Home</a></nav><p>Body <svg><text>icon</text></svg>text</p>
        <form><label>Email <input value="x"></label><button>Send</button></form>`),
    '[Home](https://example.com/)\n\nBody text\n\nEmail Send',
  );
});

t.test('article mode drops site chrome', async (t) => {
  const r = htmlToMarkdown(
    '<body><header><a href="/">Site</a></header><nav>Menu</nav><main><p>Short body.</p></main><aside>Ads</aside><footer>Foot</footer></body>',
    URL,
    { mode: 'article' },
  );
  t.equal(r.markdown, 'Short body.');
});

t.test('a link around a card links its heading', async (t) => {
  t.equal(
    md('<a href="/p/1"><img src="/1.jpg" alt="Boot"><h3>Hiking Boot</h3><span>€129</span></a>'),
    '![Boot](https://example.com/1.jpg)\n\n### [Hiking Boot](https://example.com/p/1)\n\n€129',
  );
});

t.test('definition lists', async (t) => {
  t.equal(md('<dl><dt>Term</dt><dd>Meaning of it</dd></dl>'), '**Term**\n\nMeaning of it');
});
