// Realistic page HTML for the read tests, as the in-page script hands it over
// (hidden content already removed).

export const ARTICLE_URL = 'https://blog.example.com/posts/coffee';

export const ARTICLE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>How to Brew Better Coffee at Home</title>
  <meta name="author" content="Jane Doe">
  <link rel="stylesheet" href="/site.css">
  <style>body { font-family: serif; }</style>
  <script>window.analytics = { track() {} };</script>
</head>
<body>
  <header class="site-header">
    <a href="/" class="logo"><img src="/logo.svg" alt="Example Blog"></a>
    <nav><ul><li><a href="/">Home</a></li><li><a href="/archive">Archive</a></li><li><a href="/about">About</a></li></ul></nav>
  </header>
  <main>
    <article>
      <h1>How to Brew Better Coffee at Home</h1>
      <p class="byline">By Jane Doe</p>
      <p>Brewing coffee at home is <em>simple</em> once you know the <strong>basics</strong>. This guide walks
        through grinding, water temperature, and the ratio of coffee to water that gives a balanced cup
        every time you brew, whatever beans you buy.</p>
      <h2>Equipment</h2>
      <p>You do not need much. A good grinder matters more than an expensive machine, and a scale removes
        most of the guesswork that makes home coffee inconsistent from one morning to the next.</p>
      <ul>
        <li>A burr grinder</li>
        <li>A kettle
          <ul><li>gooseneck preferred</li><li>with a thermometer</li></ul>
        </li>
        <li>A <a href="/gear/scales">kitchen scale</a></li>
      </ul>
      <h2>Ratios</h2>
      <p>Start with one gram of coffee for every sixteen grams of water and adjust to taste. Stronger brews
        use less water; lighter ones use more. The table below lists common starting points for each method.</p>
      <table>
        <thead><tr><th>Method</th><th>Coffee (g)</th><th>Water (ml)</th></tr></thead>
        <tbody>
          <tr><td>Pour over</td><td>15</td><td>250</td></tr>
          <tr><td>French press</td><td>30</td><td>500</td></tr>
        </tbody>
      </table>
      <h2>Timing</h2>
      <p>Use a timer. The script below prints the ratio for any amount of water you plan to use, which is
        handy when you brew for a crowd and want to keep the taste the same as your usual single cup.</p>
      <pre><code class="language-python">def ratio(water_ml):
    return water_ml / 16</code></pre>
      <p>Run <code>ratio(500)</code> to get about 31 grams. Read <a href="../faq#grind">the grind FAQ</a> next.</p>
      <blockquote><p>Coffee is a language in itself.</p></blockquote>
    </article>
  </main>
  <footer class="site-footer"><p>&copy; 2024 Example Blog. <a href="/privacy">Privacy</a></p></footer>
</body>
</html>`;

export const LISTING_URL = 'https://shop.example.com/c/shoes?page=1';

export const LISTING_HTML = `<!doctype html>
<html lang="de">
<head><title>Shoes – Example Shop</title></head>
<body>
  <header><a href="/">Example Shop</a> <a href="/cart">Cart (0)</a></header>
  <h1>Shoes</h1>
  <div class="filters"><span>Sort by:</span> <a href="?sort=price">Price</a> <a href="?sort=new">Newest</a></div>
  <div class="grid">
    <div class="card">
      <a href="/p/101"><img src="/img/101.jpg" alt="Trail runner in red"></a>
      <h3><a href="/p/101">Trail Runner</a></h3>
      <span class="price">€89.00</span>
      <button>Add to cart</button>
    </div>
    <div class="card">
      <a href="/p/102"><img src="/img/102.jpg" alt=""></a>
      <h3><a href="/p/102">City Sneaker</a></h3>
      <span class="price">€59.00</span> <s>€79.00</s>
      <button>Add to cart</button>
    </div>
    <a class="card" href="/p/103">
      <div><img src="/img/103.jpg" alt="Hiking boot"></div>
      <h3>Hiking Boot</h3>
      <span class="price">€129.00</span>
    </a>
  </div>
  <nav class="pager"><a href="?page=1">1</a> <a href="?page=2">2</a> <a href="?page=2">Next</a></nav>
</body>
</html>`;

/** A data page: one heading and a table of `rows` rows. */
export function bigTableHtml(rows: number): string {
  const body: string[] = [];
  for (let i = 1; i <= rows; i++) {
    body.push(
      `<tr><td>${i}</td><td>Item ${i}</td><td><a href="/items/${i}">details</a></td>` +
        `<td>${(i * 1.25).toFixed(2)}</td><td>${i % 3 === 0 ? 'sold | out' : 'in stock'}</td></tr>`,
    );
  }
  return `<!doctype html><html><head><title>Inventory</title></head><body>
<h1>Inventory</h1>
<table><thead><tr><th>ID</th><th>Name</th><th>Link</th><th>Price</th><th>Status</th></tr></thead>
<tbody>${body.join('\n')}</tbody></table></body></html>`;
}

/** A manual in Markdown, as htmlToMarkdown would give it; section 3 is about descaling. */
export const GUIDE_MD = `# Espresso Machine Guide

Thank you for buying the Model E espresso machine. This guide covers unpacking, daily use, descaling, troubleshooting and the warranty. Keep it with the machine.

## 1. Unpacking

Remove the machine from the box and take off all packing tape. Place it on a flat, dry surface away from the edge of the counter. Keep the box for transport.

- Machine body
- Portafilter with two baskets
- Tamper and measuring spoon

## 2. Daily use

Fill the water tank with fresh cold water. Switch the machine on and wait until the ready light stops blinking; this takes about 30 seconds.

Grind about 18 grams of coffee, tamp it evenly and lock the portafilter in place. Press the single or double cup button. For milk drinks, purge the steam wand, then froth the milk until the jug feels hot to the touch.

## 3. Descaling

Limescale builds up inside the boiler and pipes, especially with hard water. Scale slows the flow, lowers the brewing temperature and finally blocks the machine.

Descale with a citric acid solution: dissolve 30 grams of citric acid in one litre of water, pour it into the tank and start the descaling cycle by holding both cup buttons for five seconds. Rinse with two full tanks of clean water afterwards.

### Descaling schedule

| Water hardness | Descale every |
| --- | --- |
| Soft | 3 months |
| Medium | 2 months |
| Hard | 1 month |

## 4. Troubleshooting

If no water comes out, check that the tank is seated correctly. If the coffee runs too fast, grind finer; if it runs too slowly, grind coarser or tamp more lightly.

## 5. Warranty

The machine is covered for two years from the date of purchase. Keep your receipt. The warranty does not cover damage caused by limescale when the machine was not descaled as described.
`;
