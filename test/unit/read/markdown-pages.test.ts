// Whole pages: an article (Readability), a product listing (own walk), and a
// 2,000-row data table (own walk, must stay fast).
import t from 'tap';
import { htmlToMarkdown } from '../../../daemon/read/markdown.js';
import { ARTICLE_HTML, ARTICLE_URL, LISTING_HTML, LISTING_URL, bigTableHtml } from './fixtures.js';

const ARTICLE_MD = `# How to Brew Better Coffee at Home

By Jane Doe

Brewing coffee at home is *simple* once you know the **basics**. This guide walks through grinding, water temperature, and the ratio of coffee to water that gives a balanced cup every time you brew, whatever beans you buy.

## Equipment

You do not need much. A good grinder matters more than an expensive machine, and a scale removes most of the guesswork that makes home coffee inconsistent from one morning to the next.

- A burr grinder
- A kettle
  - gooseneck preferred
  - with a thermometer
- A [kitchen scale](https://blog.example.com/gear/scales)

## Ratios

Start with one gram of coffee for every sixteen grams of water and adjust to taste. Stronger brews use less water; lighter ones use more. The table below lists common starting points for each method.

| Method | Coffee (g) | Water (ml) |
| --- | --- | --- |
| Pour over | 15 | 250 |
| French press | 30 | 500 |

## Timing

Use a timer. The script below prints the ratio for any amount of water you plan to use, which is handy when you brew for a crowd and want to keep the taste the same as your usual single cup.

\`\`\`python
def ratio(water_ml):
    return water_ml / 16
\`\`\`

Run \`ratio(500)\` to get about 31 grams. Read [the grind FAQ](https://blog.example.com/faq#grind) next.

> Coffee is a language in itself.`;

t.test('an article goes through Readability in auto mode', async (t) => {
  const r = htmlToMarkdown(ARTICLE_HTML, ARTICLE_URL);
  t.equal(r.usedReadability, true);
  t.equal(r.title, 'How to Brew Better Coffee at Home');
  t.equal(r.byline, 'Jane Doe');
  t.equal(r.lang, 'en');
  t.equal(r.links, 2);
  t.equal(r.markdown, ARTICLE_MD);
});

t.test('page mode keeps the whole page, chrome included', async (t) => {
  const r = htmlToMarkdown(ARTICLE_HTML, ARTICLE_URL, { mode: 'page' });
  t.equal(r.usedReadability, false);
  t.ok(r.markdown.startsWith('[![Example Blog](https://blog.example.com/logo.svg)](https://blog.example.com/)\n\n'));
  t.match(r.markdown, '- [Home](https://blog.example.com/)\n- [Archive](https://blog.example.com/archive)');
  t.ok(r.markdown.endsWith('© 2024 Example Blog. [Privacy](https://blog.example.com/privacy)'));
  t.notMatch(r.markdown, /analytics|font-family/);
  // The article itself comes out the same as through Readability.
  t.match(r.markdown, ARTICLE_MD.slice(ARTICLE_MD.indexOf('## Equipment')));
});

t.test('a product listing is walked, not Readability-ed', async (t) => {
  const r = htmlToMarkdown(LISTING_HTML, LISTING_URL);
  t.equal(r.usedReadability, false);
  t.equal(r.title, 'Shoes – Example Shop');
  t.equal(r.lang, 'de');
  t.equal(r.byline, undefined);
  t.equal(
    r.markdown,
    [
      '[Example Shop](https://shop.example.com/) [Cart (0)](https://shop.example.com/cart)',
      '# Shoes',
      'Sort by: [Price](https://shop.example.com/c/shoes?sort=price) [Newest](https://shop.example.com/c/shoes?sort=new)',
      '[![Trail runner in red](https://shop.example.com/img/101.jpg)](https://shop.example.com/p/101)',
      '### [Trail Runner](https://shop.example.com/p/101)',
      '€89.00 Add to cart',
      '### [City Sneaker](https://shop.example.com/p/102)',
      '€59.00 ~~€79.00~~ Add to cart',
      '![Hiking boot](https://shop.example.com/img/103.jpg)',
      '### [Hiking Boot](https://shop.example.com/p/103)',
      '€129.00',
      '[1](https://shop.example.com/c/shoes?page=1) [2](https://shop.example.com/c/shoes?page=2) [Next](https://shop.example.com/c/shoes?page=2)',
    ].join('\n\n'),
  );
  t.equal(r.links, 11);
});

t.test('a 2,000-row table page', async (t) => {
  const html = bigTableHtml(2000);
  // Timing is logged, not asserted (goal < 200 ms): the first call includes JIT warm-up,
  // the second is what a long-running daemon sees.
  let started = performance.now();
  const r = htmlToMarkdown(html, 'https://data.example.com/inventory');
  const cold = performance.now() - started;
  started = performance.now();
  htmlToMarkdown(html, 'https://data.example.com/inventory');
  const warm = performance.now() - started;
  t.comment(
    `htmlToMarkdown on a 2,000-row table (${html.length} chars of HTML): ` +
      `${cold.toFixed(1)} ms first call, ${warm.toFixed(1)} ms second call`,
  );
  t.equal(r.usedReadability, false);
  t.equal(r.links, 2000);
  const lines = r.markdown.split('\n');
  t.equal(lines[0], '# Inventory');
  t.equal(lines[2], '| ID | Name | Link | Price | Status |');
  t.equal(lines[3], '| --- | --- | --- | --- | --- |');
  t.equal(lines[4], '| 1 | Item 1 | [details](https://data.example.com/items/1) | 1.25 | in stock |');
  t.equal(lines[6], '| 3 | Item 3 | [details](https://data.example.com/items/3) | 3.75 | sold \\| out |');
  t.equal(lines[lines.length - 1], '| 2000 | Item 2000 | [details](https://data.example.com/items/2000) | 2500.00 | in stock |');
  t.equal(lines.length, 2 + 2 + 2000);
});
