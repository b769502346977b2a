/**
 * Round trips per task, side by side: one scripted task on the loopback bench site (sign in, fill the shipping
 * form, read the order number) done through our MCP tools and through Playwright MCP's, each as the fixed
 * sequence a careful agent would use with that tool set (no model). Counted: tool calls, and characters of text
 * returned to the agent (every text part of every result; images none here). Both scripts check the order number
 * they read against the one the site computes from the fields, so a script that skipped a step would fail.
 * Prints numbers; asserts nothing beyond the task being done.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite, addTaskPages, expectedOrder, TASK_USER, TASK_PASSWORD } from './pages.js';
import { startPlaywrightMcp, mcpText, printTable } from './lib.js';

/** The vault entry's name: the bench site's host as the daemon's browser reaches it (*.test maps to loopback). */
const TASK_SITE = 'shop.test';
const SHIP = { name: 'Ada Lovelace', street: '12 Analytical Row', city: 'Lyon', country: 'France', gift: true };

interface Tally {
  calls: { tool: string; chars: number }[];
  answer?: string;
}

async function callCounted(client: Client, tally: Tally, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await client.callTool({ name: tool, arguments: args });
  const text = mcpText(r);
  tally.calls.push({ tool, chars: text.length });
  if (r.isError) throw new Error(`${tool} failed: ${text}`);
  return text;
}

/** The ref on the first line of a snapshot that matches, in either side's notation ([ref=e12]). */
function ref(snapshot: string, pattern: RegExp): string {
  for (const line of snapshot.split('\n')) {
    if (!pattern.test(line)) continue;
    const m = /\[ref=([\w:]+)\]/.exec(line);
    if (m) return m[1];
  }
  throw new Error(`no ref for ${pattern} in:\n${snapshot.slice(0, 3000)}`);
}

function orderIn(text: string): string | undefined {
  return /ORD-\d{6}/.exec(text)?.[0];
}

/**
 * Ours, as the product is meant to be used: the person stored the sign-in in the vault beforehand (a REST call of
 * theirs, not one of the agent's), so the agent signs in with browser_login and never sees the password; and an
 * action that leads to the page it needs next asks for that page with snapshot: true instead of a separate
 * browser_snapshot.
 */
async function oursScript(client: Client, url: (p: string) => string): Promise<Tally> {
  const t: Tally = { calls: [] };
  await callCounted(client, t, 'browser_open', { mode: 'act', live: 'none' });
  const form = await callCounted(client, t, 'browser_login', { site: TASK_SITE, loginUrl: url('/task/signin'), snapshot: true });
  await fillShipping(client, t, form);
  t.answer = orderIn(await callCounted(client, t, 'browser_click', { ref: ref(form, /button "Place order"/), snapshot: true }));
  return t;
}

/** Ours again, for comparison, with an agent that knows the password and types it (still snapshot: true). */
async function oursTypedScript(client: Client, url: (p: string) => string): Promise<Tally> {
  const t: Tally = { calls: [] };
  const signin = await callCounted(client, t, 'browser_open', { url: url('/task/signin'), mode: 'act', live: 'none', snapshot: true });
  await callCounted(client, t, 'browser_fill_form', { fields: { [ref(signin, /textbox "Email"/)]: TASK_USER, [ref(signin, /textbox "Password"/)]: TASK_PASSWORD } });
  const form = await callCounted(client, t, 'browser_click', { ref: ref(signin, /button "Sign in"/), snapshot: true });
  await fillShipping(client, t, form);
  t.answer = orderIn(await callCounted(client, t, 'browser_click', { ref: ref(form, /button "Place order"/), snapshot: true }));
  return t;
}

async function fillShipping(client: Client, t: Tally, snap: string): Promise<void> {
  await callCounted(client, t, 'browser_fill_form', {
    fields: {
      [ref(snap, /textbox "Full name"/)]: SHIP.name,
      [ref(snap, /textbox "Street"/)]: SHIP.street,
      [ref(snap, /textbox "City"/)]: SHIP.city,
      [ref(snap, /combobox "Country"/)]: SHIP.country,
      [ref(snap, /checkbox "This is a gift"/)]: String(SHIP.gift),
    },
  });
}

/**
 * Playwright MCP: navigate, look, fill the form, click, look, fill, click, look. Version 0.0.83 puts a link to a
 * snapshot file in its navigate and click results, not the snapshot itself, so an agent that needs refs (or the
 * answer) asks browser_snapshot, as with ours.
 */
async function playwrightScript(client: Client, url: (p: string) => string): Promise<Tally> {
  const t: Tally = { calls: [] };
  await callCounted(client, t, 'browser_navigate', { url: url('/task/signin') });
  let snap = await callCounted(client, t, 'browser_snapshot', {});
  await callCounted(client, t, 'browser_fill_form', {
    fields: [
      { name: 'Email', type: 'textbox', target: ref(snap, /textbox "Email"/), value: TASK_USER },
      { name: 'Password', type: 'textbox', target: ref(snap, /textbox "Password"/), value: TASK_PASSWORD },
    ],
  });
  await callCounted(client, t, 'browser_click', { element: 'Sign in button', target: ref(snap, /button "Sign in"/) });
  snap = await callCounted(client, t, 'browser_snapshot', {});
  await callCounted(client, t, 'browser_fill_form', {
    fields: [
      { name: 'Full name', type: 'textbox', target: ref(snap, /textbox "Full name"/), value: SHIP.name },
      { name: 'Street', type: 'textbox', target: ref(snap, /textbox "Street"/), value: SHIP.street },
      { name: 'City', type: 'textbox', target: ref(snap, /textbox "City"/), value: SHIP.city },
      { name: 'Country', type: 'combobox', target: ref(snap, /combobox "Country"/), value: SHIP.country },
      { name: 'This is a gift', type: 'checkbox', target: ref(snap, /checkbox "This is a gift"/), value: String(SHIP.gift) },
    ],
  });
  await callCounted(client, t, 'browser_click', { element: 'Place order button', target: ref(snap, /button "Place order"/) });
  t.answer = orderIn(await callCounted(client, t, 'browser_snapshot', {}));
  return t;
}

export async function run(): Promise<void> {
  const bench = await startBenchSite();
  addTaskPages(bench.site);
  const want = expectedOrder(SHIP);
  let ours: Tally;
  let typed: Tally;
  let pw: Tally;
  // The daemon's browser reaches the site by name, so the vault entry is for that name.
  const shopUrl = (p: string) => `http://${TASK_SITE}:${bench.site.port}${p}`;
  try {
    const d = await startTestDaemon();
    try {
      const token = await d.addUser('task');
      const stored = await d.rest(token, 'PUT', `/v1/vault/${TASK_SITE}`, { loginUrl: shopUrl('/task/signin'), fields: { username: TASK_USER, password: TASK_PASSWORD } });
      if (stored.status !== 200 && stored.status !== 201) throw new Error(`the vault entry was not stored: ${JSON.stringify(stored.json)}`);
      ours = await oursScript(await d.mcp(token), shopUrl);
      typed = await oursTypedScript(await d.mcp(await d.addUser('typist')), shopUrl);
    } finally {
      await d.stop();
    }
    const p = await startPlaywrightMcp();
    try {
      pw = await playwrightScript(p.client, bench.url);
    } finally {
      await p.close();
    }
  } finally {
    await bench.close();
  }
  for (const [name, t] of [['browserd', ours], ['browserd (typed sign-in)', typed], ['Playwright MCP', pw]] as const) {
    if (t.answer !== want) throw new Error(`${name} read order ${t.answer ?? '(none)'}, the site gave ${want}: the task was not done`);
  }
  const chars = (t: Tally) => t.calls.reduce((s, c) => s + c.chars, 0);
  printTable(
    'Round trips per task: sign in, fill a form, read the answer (MCP, same loopback site)',
    ['side', 'tool calls', 'characters returned', 'calls in order'],
    [
      ['browserd', ours.calls.length, chars(ours), ours.calls.map((c) => `${c.tool.replace('browser_', '')}(${c.chars})`).join(' ')],
      ['browserd, typed sign-in', typed.calls.length, chars(typed), typed.calls.map((c) => `${c.tool.replace('browser_', '')}(${c.chars})`).join(' ')],
      ['Playwright MCP', pw.calls.length, chars(pw), pw.calls.map((c) => `${c.tool.replace('browser_', '')}(${c.chars})`).join(' ')],
      ['ratio (ours / theirs)', `${(ours.calls.length / pw.calls.length).toFixed(2)}x`, `${(chars(ours) / chars(pw)).toFixed(2)}x`, 'goal: at most 0.5x of both'],
    ],
    [
      `Both read the right order number (${want}). Characters: every text part of every result the agent receives.`,
      'Each script looks once per page (a snapshot for refs) and fills each form in one call. browserd: the person stored the',
      '  sign-in in the vault first (REST, not counted), the agent signs in with browser_login and never sees the password,',
      '  and actions that lead to the next page ask for it with snapshot: true. The typed row signs in as Playwright\'s does.',
      '  Playwright MCP 0.0.83 links its snapshots as files from navigate and click results, so its agent calls browser_snapshot.',
    ],
  );
}
