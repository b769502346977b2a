// The Markdown threads give exactly what the main thread gives, for many pages at once.
import t from 'tap';
import { htmlToMarkdown, htmlToMarkdownOffThread, closeMarkdownThreads } from '../../../daemon/read/index.js';

t.teardown(() => closeMarkdownThreads());

const page = (i: number) => `<html><head><title>Page ${i}</title></head><body><nav>menu</nav><main><h1>Item ${i}</h1>
<p>Paragraph ${i} with a <a href="/x/${i}">link</a>.</p><table><tr><th>a</th><th>b</th></tr><tr><td>${i}</td><td>${i * 2}</td></tr></table></main></body></html>`;

t.test('off-thread conversion equals the inline one, in order, under concurrency', async (t) => {
  const pages = Array.from({ length: 20 }, (_, i) => page(i));
  const off = await Promise.all(pages.map((h, i) => htmlToMarkdownOffThread(h, `http://127.0.0.1/p/${i}`, { maxChars: 5000 })));
  pages.forEach((h, i) => t.same(off[i], htmlToMarkdown(h, `http://127.0.0.1/p/${i}`, { maxChars: 5000 }), `page ${i}`));
  t.match(off[7].markdown, /Item 7/);
  t.match(off[7].markdown, /http:\/\/127\.0\.0\.1\/x\/7/);
});

t.test('threads start again after they were closed', async (t) => {
  await closeMarkdownThreads();
  const r = await htmlToMarkdownOffThread(page(3), 'http://127.0.0.1/p/3');
  t.match(r.markdown, /Item 3/);
});
