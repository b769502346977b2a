/**
 * The README's Python program (first.py), cut out of README.md and run as written with the official Python MCP
 * SDK against a real daemon: the SDK is installed into a virtual environment under .cache/ from whatever package
 * index pip is set up with. A host where Python or that index is missing skips, saying which; a program that
 * runs and prints the wrong thing, or fails, fails.
 */
import { namedExample } from '../fixtures/doc-blocks.js';
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const venv = join(root, '.cache', 'python-mcp');
const python = join(venv, 'bin', 'python');

/** The SDK in a virtual environment of its own, made once; why not, when it cannot be had. */
async function pythonSdk(): Promise<string | undefined> {
  if (existsSync(python)) {
    const ok = await run(python, ['-c', 'import mcp, httpx2'], { timeout: 60_000 }).then(() => true, () => false);
    if (ok) return undefined;
    rmSync(venv, { recursive: true, force: true });
  }
  mkdirSync(join(root, '.cache'), { recursive: true });
  try {
    await run('python3', ['-m', 'venv', venv], { timeout: 120_000 });
  } catch (e) {
    return `python3 -m venv failed (no python3, or Debian's python3-venv is missing): ${(e as Error).message.split('\n')[0]}`;
  }
  try {
    // No retries: on a host with no route to an index, pip's default retries only spend minutes.
    await run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--retries', '0', '--timeout', '10', 'mcp>=2,<3'], { timeout: 300_000 });
  } catch (e) {
    rmSync(venv, { recursive: true, force: true });
    return `pip could not install the MCP SDK from this host's package index: ${(e as Error).message.split('\n').slice(0, 3).join(' ')}`;
  }
  return undefined;
}

let stack: Stack;
t.before(async () => {
  stack = await startStack();
  stack.site.route('/python', html('<h1>Hello, SDK</h1><a href="/elsewhere">a link to follow</a>', '', 'From Python'));
});
t.teardown(() => stack?.stop());

t.test("the README's Python program runs as written with the official MCP SDK", async (t) => {
  const program = namedExample('first.py').text;
  t.match(program, /^# first\.py:/, 'the README shows a whole Python program (first.py)');
  const missing = await pythonSdk();
  if (missing) {
    // Shown as a skip with its reason: this host has no Python or no package index to install the SDK from.
    t.test('with the SDK installed', { skip: missing }, () => {});
    return;
  }
  const dir = mkdtempSync(join(root, '.cache', 'readme-python-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'first.py'), program);
  const page = `${stack.site.url}/python`;
  const out = await run(python, [join(dir, 'first.py'), page], {
    env: { ...process.env, BROWSERD_URL: stack.d.url, BROWSERD_TOKEN: stack.token },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const text = out.stdout;
  t.match(text, /^t\d+ \(read\) /m, 'it printed the snapshot of the tab it opened, read mode by default');
  t.match(text, /title: From Python/, 'with the page title');
  t.match(text, /heading "Hello, SDK"/, 'its heading');
  t.match(text, /link "a link to follow" \[ref=e\d+\]/, 'and a ref for its link');
  t.match(text, /^<<<page [0-9a-f]{12}>>>$[^]*^<<<end [0-9a-f]{12}>>>$/m, 'the page text fenced');
  const tabs = await stack.rest('browser_tabs', {});
  t.ok(JSON.stringify(tabs.json).includes(page), 'the tab it opened is one of the user\'s tabs');
});
