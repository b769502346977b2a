/**
 * The benchmark pages, served on loopback by the test fixture site. Deterministic (a seeded generator), so
 * every run and every contender sees the same bytes.
 */
import { startSite, html, type FixtureSite } from '../test/fixtures/site.js';

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'browser agent page network request session profile cookie render layout script element button form field ' +
  'value table row column header link anchor image caption article section heading paragraph list item order ' +
  'market price product review shipping delivery account payment invoice report search result query index ' +
  'storage memory cache server client daemon protocol message token stream socket buffer channel thread ' +
  'river mountain valley forest garden harbour village station bridge tower library museum theatre market ' +
  'quickly slowly carefully often rarely always never usually simply clearly nearly mostly fairly ' +
  'the a of and to in on for with from by at as is was are were be been has have had will would can could'
).split(/\s+/);

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(' ');
}
function sentence(r: () => number, n = 8 + Math.floor(r() * 12)): string {
  const s = words(r, n);
  return s[0].toUpperCase() + s.slice(1) + '.';
}
function title(r: () => number, n = 3): string {
  return words(r, n).replace(/\b\w/g, (c) => c.toUpperCase());
}
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Links with an href, buttons, and form controls a person can use (hidden inputs excluded). */
export function countInteractive(pageHtml: string): number {
  const body = pageHtml.replace(/<script[\s\S]*?<\/script>/gi, '');
  const links = body.match(/<a\s[^>]*\bhref=/gi)?.length ?? 0;
  const buttons = body.match(/<button\b/gi)?.length ?? 0;
  const inputs = (body.match(/<input\b[^>]*>/gi) ?? []).filter((t) => !/type="hidden"/i.test(t)).length;
  const others = body.match(/<(select|textarea)\b/gi)?.length ?? 0;
  return links + buttons + inputs + others;
}

const SITE_NAV = `<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/blog">Blog</a> <a href="/about">About</a> <a href="/help">Help</a></nav></header>`;
const SITE_FOOTER = `<footer><p>© 2026 Bench Ltd. <a href="/terms">Terms</a> · <a href="/privacy">Privacy</a> · <a href="/contact">Contact</a></p></footer>`;
const STYLE = `<style>body{font-family:sans-serif;max-width:1100px;margin:auto} .grid{display:grid;grid-template-columns:repeat(4,1fr);gap:12px} .card{border:1px solid #ccc;padding:8px} td,th{border-bottom:1px solid #eee;padding:2px 6px}</style>`;

export function counterPage(): string {
  return html(
    `<h1>Counter</h1><p id="n">count 0</p>
     <button id="add" style="width:160px;height:48px" onclick="const p=document.getElementById('n'); p.textContent='count '+(+p.textContent.split(' ')[1]+1)">Add one</button>`,
    '',
    'Counter',
  );
}

/**
 * Next to nothing: a title and one short line. Here the two fence markers (a 16-hex nonce each) and the trusted
 * header line cost more than Playwright MCP's whole frame, so this page shows the floor of our format.
 */
export function oneLinePage(): string {
  return html('<p>Hello</p>', '', 'Hi');
}

/** The smallest page worth a snapshot: a heading, a sentence and one link (as example.com is). */
export function threeLinePage(): string {
  return html(
    `<h1>Example Domain</h1><p>This domain is for use in documentation examples without needing permission.</p><p><a href="/about">Learn more</a></p>`,
    '',
    'Example Domain',
  );
}

/** A sign-in box and nothing around it: two fields and a button. */
export function tinyFormPage(): string {
  return html(
    `<h1>Sign in</h1><form action="/signin" method="post"><label>Email <input type="email" name="email"></label> <label>Password <input type="password" name="password"></label> <button type="submit">Sign in</button></form>`,
    '',
    'Sign in',
  );
}

export function formPage(): string {
  return html(
    `${SITE_NAV}<main><h1>Create your account</h1>
    <form action="/signup" method="post">
      <label>Full name <input name="name" autocomplete="name" required></label><br>
      <label>Email <input type="email" name="email" autocomplete="email" required></label><br>
      <label>Password <input type="password" name="password" autocomplete="new-password" required></label><br>
      <label>Country <select name="country"><option>France</option><option>Germany</option><option>Spain</option><option>United Kingdom</option><option>United States</option></select></label><br>
      <fieldset><legend>Plan</legend>
        <label><input type="radio" name="plan" value="free" checked> Free</label>
        <label><input type="radio" name="plan" value="pro"> Pro</label>
        <label><input type="radio" name="plan" value="team"> Team</label>
      </fieldset>
      <label>About you <textarea name="about" rows="3"></textarea></label><br>
      <label><input type="checkbox" name="news"> Send me the newsletter</label><br>
      <input type="hidden" name="csrf" value="abc123">
      <button type="submit">Create account</button> <button type="reset">Clear</button>
    </form>
    <p>Already have an account? <a href="/login">Sign in</a>. Read the <a href="/terms">terms</a>.</p></main>${SITE_FOOTER}`,
    STYLE,
    'Sign up',
  );
}

export function productsPage(): string {
  const r = rng(40);
  const cards: string[] = [];
  for (let i = 1; i <= 40; i++) {
    const name = title(r, 3);
    const price = (5 + r() * 195).toFixed(2);
    const stars = (3 + r() * 2).toFixed(1);
    cards.push(`<div class="card">
      <a href="/product/${i}"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="160" height="120" alt="${esc(name)}"></a>
      <h3><a href="/product/${i}">${esc(name)}</a></h3>
      <p class="price">$${price}</p><p class="rating">${stars} out of 5 stars (${Math.floor(r() * 900) + 3} reviews)</p>
      <p>${esc(sentence(r, 12))}</p>
      <button type="button" data-id="${i}">Add to cart</button>
    </div>`);
  }
  return html(
    `${SITE_NAV}<main><h1>Products</h1>
    <form role="search" action="/search"><label>Search <input type="search" name="q"></label> <button>Go</button></form>
    <p>Sort by <select><option>Relevance</option><option>Price</option><option>Rating</option></select></p>
    <div class="grid">${cards.join('\n')}</div>
    <nav aria-label="pages"><a href="?p=1">1</a> <a href="?p=2">2</a> <a href="?p=3">3</a> <a href="?p=2">Next</a></nav></main>${SITE_FOOTER}`,
    STYLE,
    'Products',
  );
}

export function tablePage(rows = 2000): string {
  const r = rng(2000);
  const cities = ['Paris', 'Berlin', 'Madrid', 'London', 'Rome', 'Vienna', 'Oslo', 'Lisbon', 'Prague', 'Dublin'];
  const body: string[] = [];
  for (let i = 1; i <= rows; i++) {
    const first = title(r, 1);
    const last = title(r, 1);
    body.push(
      `<tr><td><a href="/customer/${i}">C-${String(i).padStart(5, '0')}</a></td><td>${first} ${last}</td><td>${first.toLowerCase()}.${last.toLowerCase()}${i}@example.test</td><td>${cities[Math.floor(r() * cities.length)]}</td><td>${(r() * 10000).toFixed(2)}</td></tr>`,
    );
  }
  return html(
    `${SITE_NAV}<main><h1>Customers</h1><p>${rows} customers, newest first.</p>
    <table id="customers"><caption>Customers</caption><thead><tr><th>Id</th><th>Name</th><th>Email</th><th>City</th><th>Balance</th></tr></thead>
    <tbody>${body.join('\n')}</tbody></table></main>${SITE_FOOTER}`,
    STYLE,
    'Customers',
  );
}

/** A long article: headings, paragraphs with inline links, lists, a quote. ~`targetWords` words of text. */
export function articlePage(seed = 5000, targetWords = 5000, name = 'A long article'): string {
  const r = rng(seed);
  const parts: string[] = [`<h1>${esc(name)}</h1><p class="byline">By Bench Writer · 12 min read</p>`];
  let count = 0;
  let link = 0;
  let section = 0;
  while (count < targetWords) {
    section++;
    parts.push(`<h2 id="s${section}">${esc(title(r, 4))}</h2>`);
    for (let sub = 0; sub < 2 && count < targetWords; sub++) {
      if (sub) parts.push(`<h3>${esc(title(r, 3))}</h3>`);
      for (let p = 0; p < 3; p++) {
        const sentences: string[] = [];
        for (let s = 0; s < 4; s++) {
          const text = sentence(r);
          count += text.split(' ').length;
          if (r() < 0.35) {
            const [a, b] = [text.split(' ').slice(0, 4).join(' '), text.split(' ').slice(4).join(' ')];
            sentences.push(`${esc(a)} <a href="/ref/${++link}">${esc(b.split(' ').slice(0, 2).join(' '))}</a> ${esc(b.split(' ').slice(2).join(' '))}`);
          } else sentences.push(esc(text));
        }
        parts.push(`<p>${sentences.join(' ')}</p>`);
      }
      if (r() < 0.6) {
        const tag = r() < 0.5 ? 'ul' : 'ol';
        const items: string[] = [];
        for (let k = 0; k < 4; k++) {
          const text = words(r, 6);
          count += 6;
          items.push(`<li>${k === 0 ? `<a href="/ref/${++link}">${esc(text)}</a>` : esc(text)}</li>`);
        }
        parts.push(`<${tag}>${items.join('')}</${tag}>`);
      }
    }
    if (section % 4 === 0) {
      const q = sentence(r, 20);
      count += 20;
      parts.push(`<blockquote>${esc(q)}</blockquote>`);
    }
  }
  const toc = Array.from({ length: section }, (_, i) => `<li><a href="#s${i + 1}">Section ${i + 1}</a></li>`).join('');
  return html(
    `${SITE_NAV}<div style="display:flex"><aside style="width:200px"><h2>Contents</h2><ol>${toc}</ol></aside><main><article>${parts.join('\n')}</article></main></div>${SITE_FOOTER}`,
    STYLE,
    name,
  );
}

/** The fifty pages browser_read reads: short articles (~600 words) with headings, a list, a table, links. */
export function readPage(i: number): string {
  const r = rng(9000 + i);
  const rows = Array.from({ length: 6 }, (_, k) => `<tr><td>${esc(title(r, 2))}</td><td>${k * 7 + i}</td><td>${(r() * 100).toFixed(1)}%</td></tr>`).join('');
  const body = articlePage(10000 + i, 600, `Read page ${i + 1}: ${title(r, 3)}`).replace(
    '</article>',
    `<h2>Figures</h2><table><thead><tr><th>Name</th><th>Count</th><th>Share</th></tr></thead><tbody>${rows}</tbody></table></article>`,
  );
  return body;
}

/**
 * A page that spawns what a tab must adopt before it runs: a frame from another site (its own process), a
 * dedicated worker, and a worker started inside that frame.
 */
export function framesPage(port: number): string {
  return `<!doctype html><html><head><title>Frames and workers</title></head><body><h1>Frames and workers</h1>
<iframe src="http://frames.test:${port}/frame-inner" width="400" height="200"></iframe>
<script>new Worker('/bench-worker.js');</script><p>${'Some text. '.repeat(200)}</p></body></html>`;
}

export const FRAME_INNER = `<!doctype html><html><body><p>Inside a frame from another site.</p><script>new Worker('/bench-worker.js');</script></body></html>`;

export const READ_PAGES = 50;

export interface BenchSite {
  site: FixtureSite;
  url(path: string): string;
  /** Interactive elements (links, buttons, inputs) in each page's HTML, by path. */
  interactive: Map<string, number>;
  close(): Promise<void>;
}

export async function startBenchSite(): Promise<BenchSite> {
  const site = await startSite();
  const interactive = new Map<string, number>();
  const add = (path: string, body: string) => {
    site.route(path, body);
    interactive.set(path, countInteractive(body));
  };
  add('/counter', counterPage());
  add('/one-line', oneLinePage());
  add('/empty', '<!doctype html><html><head><meta charset="utf-8"></head></html>');
  add('/three-lines', threeLinePage());
  add('/tiny-form', tinyFormPage());
  add('/form', formPage());
  add('/products', productsPage());
  add('/table', tablePage());
  add('/article', articlePage());
  for (let i = 0; i < READ_PAGES; i++) add(`/read/${i}`, readPage(i));
  add('/frames', framesPage(site.port));
  add('/frame-inner', FRAME_INNER);
  site.route('/bench-worker.js', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end('postMessage(1);');
  });
  // Browsers ask for it; a 204 keeps 404s out of both sides' consoles and logs.
  site.route('/favicon.ico', (_req, res) => {
    res.writeHead(204);
    res.end();
  });
  return { site, url: (p) => `${site.url}${p}`, interactive, close: () => site.close() };
}

// ------------------------------------------------------------------ load bench and round-trip task pages

/** The page every load-bench tab works on: a counter to click, a field to type into, a list to query and read. */
export function loadPage(): string {
  const r = rng(77);
  const items = Array.from({ length: 20 }, (_, i) => `<li class="item">Item ${i + 1}: ${esc(sentence(r, 8))}</li>`).join('');
  return html(
    `<h1>Load</h1><p id="n">count 0</p>
     <button id="add" style="width:160px;height:48px" onclick="const p=document.getElementById('n'); p.textContent='count '+(+p.textContent.split(' ')[1]+1)">Add one</button>
     <p><label>Note <input id="note" name="note"></label></p>
     <ul>${items}</ul><p>${esc(sentence(r, 40))}</p>`,
    '',
    'Load',
  );
}

/** The round-trip task's account: fixed, and only on the loopback fixture site. */
export const TASK_USER = 'ada@example.test';
export const TASK_PASSWORD = 'correct horse battery';

/**
 * The round-trip task: sign in at /task/signin, fill the shipping form at /task/form, read the answer at
 * /task/done (an order number computed from what was sent, so a wrong form shows a wrong answer). The session is
 * a cookie set by the sign-in POST; the form refuses anyone without it.
 */
export function addTaskPages(site: FixtureSite): void {
  const signedIn = (cookie: string | undefined) => /(^|;\s*)task_session=ok(;|$)/.test(cookie ?? '');
  const page = (title: string, body: string) => html(`${SITE_NAV}<main>${body}</main>${SITE_FOOTER}`, STYLE, title);
  site.route('/task/signin', (req, res, body) => {
    if (req.method === 'POST') {
      const f = new URLSearchParams(body);
      if (f.get('email') === TASK_USER && f.get('password') === TASK_PASSWORD) {
        res.writeHead(303, { location: '/task/form', 'set-cookie': 'task_session=ok; Path=/; HttpOnly; SameSite=Lax' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('Sign in', '<h1>Sign in</h1><p role="alert">Wrong email or password.</p>'));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      page(
        'Sign in',
        `<h1>Sign in</h1><form method="post" action="/task/signin">
          <label>Email <input type="email" name="email" autocomplete="username" required></label><br>
          <label>Password <input type="password" name="password" autocomplete="current-password" required></label><br>
          <button type="submit">Sign in</button></form><p><a href="/help">Forgot your password?</a></p>`,
      ),
    );
  });
  site.route('/task/form', (req, res) => {
    if (!signedIn(req.headers.cookie)) {
      res.writeHead(303, { location: '/task/signin' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      page(
        'Shipping',
        `<h1>Where should we ship?</h1><form method="post" action="/task/done">
          <label>Full name <input name="name" required></label><br>
          <label>Street <input name="street" required></label><br>
          <label>City <input name="city" required></label><br>
          <label>Country <select name="country"><option>France</option><option>Germany</option><option>Spain</option><option>United Kingdom</option></select></label><br>
          <label><input type="checkbox" name="gift"> This is a gift</label><br>
          <button type="submit">Place order</button></form>`,
      ),
    );
  });
  site.route('/task/done', (req, res, body) => {
    if (!signedIn(req.headers.cookie) || req.method !== 'POST') {
      res.writeHead(303, { location: '/task/signin' });
      res.end();
      return;
    }
    const f = new URLSearchParams(body);
    const fields = ['name', 'street', 'city', 'country'].map((k) => f.get(k) ?? '');
    let h = 7;
    for (const ch of fields.join('|') + (f.get('gift') ? '|gift' : '')) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
    const order = `ORD-${String(h % 1_000_000).padStart(6, '0')}`;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page('Order placed', `<h1>Thank you</h1><p>Your order number is <strong id="order">${order}</strong>. It ships to ${esc(fields[2])}, ${esc(fields[3])}${f.get('gift') ? ', gift-wrapped' : ''}.</p>`));
  });
}

/** The order number /task/done shows for these fields (the scripts check the answer they read against it). */
export function expectedOrder(fields: { name: string; street: string; city: string; country: string; gift: boolean }): string {
  let h = 7;
  for (const ch of [fields.name, fields.street, fields.city, fields.country].join('|') + (fields.gift ? '|gift' : '')) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return `ORD-${String(h % 1_000_000).padStart(6, '0')}`;
}
