/**
 * Snapshot size: our browser_snapshot vs Playwright MCP's browser_snapshot, in characters of tool-result text
 * (what a model reads), on the same loopback pages. And reachability: every link, button and input of the page
 * should have a ref in ours (refs are how an agent acts on an element).
 */
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { startPlaywrightMcp, printTable, mcpText } from './lib.js';

const PAGES: { path: string; label: string }[] = [
  { path: '/empty', label: 'empty page' },
  { path: '/one-line', label: 'one line ("Hello")' },
  { path: '/three-lines', label: 'three-line page' },
  { path: '/tiny-form', label: 'tiny form (sign-in)' },
  { path: '/form', label: 'small form' },
  { path: '/products', label: 'product listing (40 cards)' },
  { path: '/table', label: 'table, 2,000 rows' },
  { path: '/article', label: 'long article (~5,000 words)' },
];

/** Lines of a Playwright snapshot for elements a person can act on (their roles), to compare coverage. */
const PW_INTERACTIVE = /^\s*- (link|button|textbox|searchbox|checkbox|radio|combobox|listbox|slider|spinbutton|switch)\b.*\[ref=/;

interface Sizes {
  ours: number;
  oursBody: number;
  refs: number;
  pw: number;
  pwBody: number;
  pwInteractive: number;
}

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const sizes = new Map<string, Sizes>();
  const notes: string[] = [];
  try {
    const d = await startTestDaemon();
    try {
      const token = await d.addUser('bench');
      const client = await d.mcp(token);
      for (const p of PAGES) {
        const open = await client.callTool({ name: 'browser_open', arguments: { url: site.url(p.path) } });
        if (open.isError) throw new Error(`browser_open ${p.path}: ${mcpText(open)}`);
        const tab = /Opened tab (\S+)/.exec(mcpText(open))?.[1];
        const r = await client.callTool({ name: 'browser_snapshot', arguments: { tab } });
        const text = mcpText(r);
        if (r.isError) throw new Error(`browser_snapshot ${p.path}: ${text}`);
        const body = /<<<page [0-9a-f]+[^\n]*>>>\n([\s\S]*?)\n<<<end [0-9a-f]/.exec(text)?.[1] ?? '';
        const refs = new Set([...text.matchAll(/\[ref=((?:f\d+:)?e\d+)\]/g)].map((m) => m[1])).size;
        sizes.set(p.path, { ours: text.length, oursBody: body.length, refs, pw: NaN, pwBody: NaN, pwInteractive: NaN });
        await client.callTool({ name: 'browser_close_tab', arguments: { tab } });
      }
    } finally {
      await d.stop();
    }

    let pwError = '';
    try {
      const pw = await startPlaywrightMcp();
      try {
        for (const p of PAGES) {
          const nav = await pw.client.callTool({ name: 'browser_navigate', arguments: { url: site.url(p.path) } });
          if (nav.isError) throw new Error(`Playwright browser_navigate ${p.path}: ${mcpText(nav)}`);
          const r = await pw.client.callTool({ name: 'browser_snapshot', arguments: {} });
          const text = mcpText(r);
          if (r.isError) throw new Error(`Playwright browser_snapshot ${p.path}: ${text}`);
          const body = /```yaml\n([\s\S]*?)\n```/.exec(text)?.[1] ?? '';
          if (!body) notes.push(`Playwright MCP did not inline the snapshot of ${p.path}; its text was: ${text.slice(0, 200)}`);
          const s = sizes.get(p.path)!;
          s.pw = text.length;
          s.pwBody = body.length;
          s.pwInteractive = body.split('\n').filter((l) => PW_INTERACTIVE.test(l)).length;
        }
      } finally {
        await pw.close();
      }
    } catch (e) {
      pwError = e instanceof Error ? e.message : String(e);
      notes.push(`Playwright MCP could not be run: ${pwError}`);
    }

    const rows = PAGES.map((p) => {
      const s = sizes.get(p.path)!;
      const want = site.interactive.get(p.path) ?? 0;
      return [
        p.label,
        String(s.ours),
        Number.isFinite(s.pw) ? String(s.pw) : 'n/a',
        Number.isFinite(s.pw) ? `${(s.ours / s.pw).toFixed(2)}x` : 'n/a',
        String(s.oursBody),
        Number.isFinite(s.pwBody) ? String(s.pwBody) : 'n/a',
        Number.isFinite(s.pwBody) && s.pwBody ? `${(s.oursBody / s.pwBody).toFixed(2)}x` : 'n/a',
        String(want),
        String(s.refs),
        Number.isFinite(s.pwInteractive) ? String(s.pwInteractive) : 'n/a',
        s.refs >= want ? 'yes' : `NO (${want - s.refs} missing)`,
      ];
    });
    notes.unshift(
      'chars = the whole tool-result text a model reads (ours: header line and fenced page text; Playwright: page header and yaml block).',
      'body = what is inside our fence (the rest of the address, the title, the outline) / inside Playwright\'s ```yaml block.',
      'Goal (whole result): ratio <= 1.00 on every page, the empty one included, <= 0.50 on larger pages, <= 0.25 on the 2,000-row table, with every interactive element reachable.',
      'interactive in page = links with href, buttons, inputs (not type=hidden), selects, textareas in the served HTML.',
      'our refs = distinct [ref=...] in our snapshot; Playwright interactive = its link/button/textbox/checkbox/radio/combobox/... lines with a ref.',
    );
    printTable(
      'Snapshot size: browserd browser_snapshot vs Playwright MCP browser_snapshot (same pages, same Chromium)',
      ['page', 'ours chars', 'Playwright chars', 'ratio', 'ours body', 'Playwright body', 'body ratio', 'interactive in page', 'our refs', 'Playwright interactive', 'all reachable'],
      rows,
      notes,
    );
  } finally {
    await site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
