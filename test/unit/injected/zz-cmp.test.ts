import t from 'tap';
import { startHarness } from './harness.js';
const h = await startHarness(t);
const para = (n: number) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i}: ${'The quick brown fox jumps over the lazy dog while reading <a href="/x">a link</a> about descaling kettles. '.repeat(4)}</p>`).join('');
const cards = Array.from({ length: 12 }, (_, i) => `<div class="card"><a href="/p/${i}"><img src="/i.png" alt="Product ${i}"></a><h3>Product ${i}</h3><span class="price">$${i}.00</span><button>Add to cart</button></div>`).join('');
h.route('/typical', `<header><a href="/"><img alt="Logo" src="/l.png"></a><nav><ul>${['Home','Shop','About','Blog','Contact'].map(x=>`<li><a href="/${x}">${x}</a></li>`).join('')}</ul></nav><form role="search"><input type="search" placeholder="Search"><button>Go</button></form></header>
<main><h1>Welcome to the shop</h1>${para(3)}<section aria-label="Products"><h2>Featured</h2><div class="grid">${cards}</div></section>
<aside><h2>Newsletter</h2><label>Email <input type="email"></label><label><input type="checkbox"> I agree</label><button>Subscribe</button></aside></main>
<footer><p>© 2024 Shop</p><ul><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li></ul></footer>`);
const rows = Array.from({ length: 2000 }, (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i * 1.5).toFixed(2)}</td><td>${i % 7}</td><td><a href="/i/${i + 1}">Edit</a></td></tr>`).join('');
h.route('/table', `<h1>Inventory</h1><table><thead><tr><th>Name</th><th>Price</th><th>Qty</th><th></th></tr></thead><tbody>${rows}</tbody></table>`);
h.route('/article', `<article><h1>Long article</h1>${para(40)}</article>`);
async function pwLike(p: any) {
  // Playwright-style rendering of Chromium's accessibility tree: every non-ignored node a line with a ref; links get /url.
  const { nodes } = await h.conn.send('Accessibility.getFullAXTree', {}, p.sessionId);
  const byId = new Map(nodes.map((n: any) => [n.nodeId, n]));
  let ref = 0; const out: string[] = [];
  const skip = new Set(['none', 'generic', 'InlineTextBox', 'LineBreak', 'StaticText', 'RootWebArea', 'ignored']);
  const walk = (n: any, depth: number) => {
    const role = n.role?.value; const name = n.name?.value ?? '';
    let d = depth;
    if (!n.ignored && role === 'StaticText') { out.push(`${'  '.repeat(depth)}- text: ${name}`); return; }
    if (!n.ignored && !skip.has(role)) {
      out.push(`${'  '.repeat(depth)}- ${role}${name ? ` "${name}"` : ''} [ref=e${++ref}]${n.childIds?.length ? ':' : ''}`);
      if (role === 'link') out.push(`${'  '.repeat(depth + 1)}- /url: /x`);
      d = depth + 1;
    }
    for (const c of n.childIds ?? []) { const k = byId.get(c); if (k) walk(k, d); }
  };
  walk(nodes[0], 0);
  return out.join('\n');
}
for (const path of ['/typical', '/table', '/article']) {
  const p = await h.open(path);
  await h.conn.send('Accessibility.enable', {}, p.sessionId);
  const ours = (await p.call('snapshot', {})).text;
  const pw = await pwLike(p);
  console.log(path, 'ours', ours.length, 'pw-like', pw.length, 'ratio', (ours.length / pw.length).toFixed(2));
  if (path === '/typical') console.log(ours);
  await p.close();
}
t.pass();
