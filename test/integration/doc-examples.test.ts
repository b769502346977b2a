/**
 * Every example in README.md and docs/ runs, as a reader would run it, against a real daemon and a loopback
 * site, so an example that stops working fails the suite (the blocks and their markers: test/fixtures/doc-blocks.ts).
 *
 * The ```sh blocks of one file run in order in bash, each with `set -euo pipefail`, sharing the variables the
 * earlier ones set (TAB=$(curl ... | jq -r .tab) in one block is $TAB in the next). curl fails on an error
 * status (--fail-with-body), so an example that gets a 4xx or 5xx fails here with the answer it got. What a
 * reader would fill in is filled in, and nothing else:
 *   - BROWSERD_URL, BROWSERD_TOKEN and BROWSERD_ADMIN_KEY are this daemon's (a fresh user per file), and the
 *     placeholders `http://127.0.0.1:8787`, `bd_…` and `bda_…` in a block become them; the first-run
 *     credentials file is where `npm start` writes it, under HOME, holding user "me"'s token;
 *   - https://example.com is the loopback site below, on its port (Chromium's host resolver maps the name);
 *   - PASSWORD, TOTP_SECRET and OPENAI_API_KEY are set, `browserd` runs bin/browserd.js on this daemon's data
 *     dir, and the working directory is a scratch directory holding report.pdf, with bin/ linked in.
 * The model provider is the loopback fake (test/fixtures/fake-models.ts), answering what each model example asks.
 * Named examples run in their own tests: every name must be asked for by a test file under test/.
 */
import t from 'tap';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { startFakeModels, type FakeModels, type RecordedRequest } from '../fixtures/fake-models.js';
import { makePdf } from '../fixtures/documents.js';
import { allBlocks, browserdOnPath, docFiles, blocksOf, namedExample, ROOT, type DocBlock } from '../fixtures/doc-blocks.js';
import { closeAll } from '../fixtures/close-all.js';
import { writeCredentials } from '../../bin/credentials-file.js';

const run = promisify(execFile);

/** A block that calls the daemon: its address, a route, or the CLI. Such a block may not be marked "not run". */
const TALKS_TO_DAEMON = /\$BROWSERD_URL|:8787|\/v1\/|\/mcp\b|^\s*(browserd|node bin\/browserd\.js)\s/m;

const SECRETS = { PASSWORD: 'correct-horse-battery', TOTP_SECRET: 'JBSWY3DPEHPK3PXP', OPENAI_API_KEY: 'sk-docs-example-key' };

let d: TestDaemon;
let site: FixtureSite;
let fake: FakeModels;
let adminKey: string;
/** The first user's token, as the credentials file holds it (README.md's examples run as that user). */
let readmeToken: string;
let scratch: string;
let shims: string;

/** The pages the examples open on "https://example.com". */
function routeSite(s: FixtureSite, pdf: Buffer): void {
  const links = (n: number) => [1, 2, 3].map((k) => `<a href="/page/${n * 3 + k}">page ${n * 3 + k}</a>`).join(' ');
  s.route('/', html(`<h1>Example Domain</h1><p>This domain is for use in documentation examples.</p>${links(0)}`, '', 'Example Domain'));
  // Pages that take a moment each, so a crawl is still running when the next command pauses it.
  for (let n = 1; n <= 60; n++) {
    s.route(`/page/${n}`, (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html(`<h1>Page ${n}</h1><p>Words on page ${n}.</p>${links(n)}`, '', `Page ${n}`));
      }, 150);
    });
  }
  const item = (id: string) => html(`<main><h1>Blue Kettle ${id}</h1><p>Price: <span class="price" id="price">42.50</span> euros</p><ul><li class="tag">steel</li><li class="tag">blue</li></ul></main>`, '', `Item ${id}`);
  s.route('/item/1', item('1'));
  s.route('/item/42', item('42'));
  s.route('/review', html('<article><h1>Review: the Blue Kettle</h1><p>The Blue Kettle costs 42.50 euros and boils a litre in three minutes.</p></article>', '', 'Kettle review'));
  s.route('/login', html('<h1>Sign in</h1><form method="post" action="/session"><label>Username <input name="username"></label><label>Password <input type="password" name="password"></label><button>Sign in</button></form>', '', 'Sign in'));
  s.route('/session', (_req, res) => {
    res.writeHead(303, { location: '/' });
    res.end();
  });
  s.route('/annual-report.pdf', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(pdf);
  });
  s.route('/hooks/browserd', (_req, res) => {
    res.writeHead(204);
    res.end();
  });
}

/** What the user messages sent to the model say (the action and the fenced snapshot or page). */
const userText = (req: RecordedRequest) => ((req.body?.messages ?? []) as any[]).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

/** The model's side of the model examples: selectors for an item page, fields of the review, the act's one step. */
function modelAnswers(req: RecordedRequest) {
  const tools = ((req.body?.tools ?? []) as any[]).map((x) => x.function?.name);
  if (tools.includes('answer_selectors')) return { toolCalls: [{ name: 'answer_selectors', args: { fields: { title: { css: 'h1' }, price: { css: '.price' }, tags: { css: 'li.tag' } } } }] };
  if (req.body?.tool_choice?.function?.name === 'answer') return { json: { data: { name: 'Blue Kettle', price: 42.5 }, citations: [] } };
  const field = /textbox "Password" \[ref=(e\d+)\]/.exec(userText(req))?.[1];
  const placeholder = /%vault:[^%\s]+%/.exec(userText(req))?.[0];
  if (field && placeholder) return { toolCalls: [{ name: 'browser_fill', args: { ref: field, value: placeholder } }] };
  return { text: 'nothing to do' };
}

t.before(async () => {
  fake = await startFakeModels();
  fake.fallback = modelAnswers;
  site = await startSite();
  d = await startTestDaemon({
    models: fake.config,
    chromeArgs: ['--host-resolver-rules=MAP example.com 127.0.0.1, MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  const pdf = await makePdf([['Annual report 2025', 'Revenue grew by a tenth.']], 'Annual report');
  routeSite(site, pdf);
  readmeToken = await d.addUser('me');
  adminKey = (await run(process.execPath, [join(ROOT, 'bin/browserd.js'), 'admin', 'key', '--data', d.dataDir], { encoding: 'utf8' })).stdout.trim().split('\n').at(-1)!.trim();
  scratch = mkdtempSync(join(tmpdir(), 'browserd-doc-examples-'));
  writeFileSync(join(scratch, 'report.pdf'), pdf);
  symlinkSync(join(ROOT, 'bin'), join(scratch, 'bin'));
  // The reader's first-run credentials file, where `npm start` writes it (HOME is the scratch directory).
  mkdirSync(join(scratch, '.local/share/browserd'), { recursive: true });
  writeCredentials(join(scratch, '.local/share/browserd'), { admin_key: adminKey, user: 'me', token: readmeToken, mcp_url: `${d.url}/mcp` });
  shims = browserdOnPath(join(scratch, '.shims'));
});
t.teardown(() => closeAll(() => d?.stop(), () => site?.close(), () => fake?.close(), () => scratch && rmSync(scratch, { recursive: true, force: true })));

/** The block as the reader would run it here: placeholders filled in (see the file's comment). */
function filledIn(text: string, token: string): string {
  const host = new URL(d.url).host;
  return text
    .replaceAll('http://127.0.0.1:8787', d.url)
    .replaceAll('localhost:8787', host)
    .replaceAll('https://example.com', `http://example.com:${site.port}`)
    .replaceAll('bda_…', adminKey)
    .replaceAll('bd_…', token);
}

/** Runs one sh block in bash with the variables the file's earlier blocks left; answers the variables it leaves. */
async function runShell(block: DocBlock, env: NodeJS.ProcessEnv, token: string): Promise<{ env: NodeJS.ProcessEnv; out: string }> {
  const state = join(scratch, '.state');
  rmSync(state, { force: true });
  const script = [
    'set -euo pipefail',
    'set -a',
    // An error status fails the example; example.com is the loopback site for curl as for Chromium.
    `curl() { command curl --fail-with-body --max-time 120 --connect-to example.com:${site.port}:127.0.0.1:${site.port} "$@"; }`,
    filledIn(block.text, token),
    `env -0 > ${JSON.stringify(state)}`,
  ].join('\n');
  const child = spawn('bash', ['-c', script], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  if (code !== 0) throw new Error(`${block.file}:${block.line} exited ${code}:\n${out}`);
  const next: NodeJS.ProcessEnv = {};
  for (const kv of readFileSync(state, 'utf8').split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) next[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return { env: next, out };
}

t.test('every example is run or says why not, and every name is claimed by a test', async (t) => {
  const testFiles = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? testFiles(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : []));
  const tests = testFiles(join(ROOT, 'test')).map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const b of allBlocks()) {
    const where = `${b.file}:${b.line}`;
    if (b.marker === undefined) {
      t.ok(b.lang === 'sh' || b.lang === '' || b.lang === 'text', `${where}: ${b.lang ? `run below (${b.lang})` : 'sample output'}`, { hint: 'a block in another language needs a marker: a name a test runs, a tool, or "not run: why"' });
      continue;
    }
    if (b.marker.startsWith('not run')) {
      t.match(b.marker, /^not run: \S.{10,}/, `${where}: says why it is not run`);
      t.notMatch(b.text, TALKS_TO_DAEMON, `${where}: a block that talks to the daemon is run`);
    } else if (b.marker.startsWith('tool ')) {
      t.equal(b.lang, 'json', `${where}: tool arguments are JSON`);
    } else {
      t.ok(tests.includes(`namedExample('${b.marker}')`), `${where}: a test runs the example "${b.marker}"`);
      t.doesNotThrow(() => namedExample(b.marker!), `${where}: "${b.marker}" names one block`);
    }
  }
});

/** The shell examples need bash, curl and jq, as a reader would (npm run check installs jq when root). */
const missingTool = ['bash', 'curl', 'jq'].find((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);

for (const file of missingTool ? [] : docFiles()) {
  const blocks = blocksOf(file).filter((b) => (b.lang === 'sh' && b.marker === undefined) || b.marker?.startsWith('tool '));
  if (!blocks.length) continue;
  t.test(`${file}: its examples run in order`, async (t) => {
    // README.md's examples read the first user's token from the credentials file; each page of docs/ gets a user of its own.
    const token = file === 'README.md' ? readmeToken : await d.addUser(`docs-${file.replace(/\W+/g, '-').toLowerCase()}`.slice(0, 32));
    let env: NodeJS.ProcessEnv = {
      PATH: `${shims}:${process.env.PATH}`,
      HOME: scratch,
      LANG: 'C.UTF-8',
      BROWSERD_URL: d.url,
      BROWSERD_TOKEN: token,
      BROWSERD_ADMIN_KEY: adminKey,
      BROWSERD_DATA: d.dataDir,
      ...SECRETS,
    };
    // The README sets the three variables itself, from the credentials file: its examples start without them.
    if (file === 'README.md') for (const v of ['BROWSERD_URL', 'BROWSERD_TOKEN', 'BROWSERD_ADMIN_KEY']) delete env[v];
    for (const b of blocks) {
      if (b.marker?.startsWith('tool ')) {
        const tool = b.marker.slice('tool '.length);
        const r = await d.rest(token, 'POST', `/v1/tools/${tool}`, JSON.parse(filledIn(b.text, token)));
        t.equal(r.status, 200, `${b.file}:${b.line}: ${tool} takes these arguments`, { answer: r.status === 200 ? undefined : r.json });
        continue;
      }
      const r = await runShell(b, env, token);
      env = r.env;
      t.pass(`${b.file}:${b.line} ran`);
      // The README's first call shows the page it opened, as an agent would read it.
      if (file === 'README.md' && b.text.includes('browser_snapshot')) t.match(r.out, /heading "Example Domain"/, "the README's first REST call prints the page's outline");
    }
  });
}

if (missingTool) t.test('the shell examples', { skip: `${missingTool} is not installed (apt-get install ${missingTool})` }, () => {});

t.test('the MCP client configurations connect as written', async (t) => {
  const token = await d.addUser('docs-mcp-configs');
  const tabsOver = async (client: Client) => {
    const r: any = await client.callTool({ name: 'browser_tabs', arguments: {} });
    return r.isError ? `error: ${JSON.stringify(r.content)}` : 'ok';
  };

  // Claude Code: the URL and header it is told to use.
  const cc = filledIn(namedExample('claude-code').text, token);
  const ccArgs = /claude mcp add --transport http browserd (\S+) --header "([^"]+)"/.exec(cc);
  t.ok(ccArgs, 'the Claude Code command names a URL and a header');
  if (ccArgs) {
    const [name, value] = ccArgs[2]!.split(/:\s*/, 2) as [string, string];
    const client = new Client({ name: 'docs', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(ccArgs[1]!), { requestInit: { headers: { [name]: value } } }));
    t.equal(await tabsOver(client), 'ok', 'Claude Code\'s URL and header reach the tools');
    await client.close();
  }

  // Clients that take a URL and headers.
  const cfg = JSON.parse(filledIn(namedExample('url-config').text, token)).mcpServers.browserd;
  const urlClient = new Client({ name: 'docs', version: '1' });
  await urlClient.connect(new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: cfg.headers } }));
  t.equal(await tabsOver(urlClient), 'ok', 'the url + headers configuration reaches the tools');
  await urlClient.close();

  // Claude Desktop: the command, arguments and environment it would start, through mcp-remote (a dev dependency,
  // so npx finds it here without the network).
  const desktop = JSON.parse(filledIn(namedExample('claude-desktop').text, token)).mcpServers.browserd;
  const { NODE_OPTIONS: _n, ...base } = process.env;
  const stdio = new StdioClientTransport({ command: desktop.command, args: desktop.args, env: { ...base, ...desktop.env } as Record<string, string>, cwd: ROOT, stderr: 'pipe' });
  let bridgeErr = '';
  stdio.stderr?.on('data', (c) => (bridgeErr += c));
  const viaBridge = new Client({ name: 'docs', version: '1' });
  try {
    await viaBridge.connect(stdio);
    t.equal(await tabsOver(viaBridge), 'ok', 'Claude Desktop\'s configuration reaches the tools through mcp-remote');
  } catch (e) {
    t.fail(`mcp-remote did not connect: ${(e as Error).message}\n${bridgeErr.slice(-2000)}`);
  } finally {
    await viaBridge.close().catch(() => {});
  }
});

t.test('the flags example serves the host it names and refuses others', async (t) => {
  const block = namedExample('serve-flags').text;
  const args = /npm start -- (.*)/.exec(block)?.[1]?.trim().split(/\s+/);
  t.ok(args, 'the example passes flags to npm start');
  if (!args) return;
  const data = mkdtempSync(join(tmpdir(), 'browserd-doc-flags-'));
  t.teardown(() => rmSync(data, { recursive: true, force: true }));
  // The same flags on a free port and a temporary data dir: the address and the names are the example's.
  const port = 20000 + Math.floor(Math.random() * 20000);
  const flags = args.map((a) => a.replace(/:8787$/, `:${port}`).replace('/srv/browserd', data));
  t.ok(flags.includes(`0.0.0.0:${port}`), 'it listens on every address');
  const { NODE_OPTIONS: _n, ...env } = process.env;
  const child = spawn(process.execPath, [join(ROOT, 'bin/browserd.js'), 'serve', ...flags], { env: { ...env, BROWSERD_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listening = new Promise<void>((done, fail) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('browserd listening')) done();
    });
    child.stderr.on('data', (c) => (out += c));
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)));
  });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
  });
  await listening;
  // No token: the name it serves gets as far as the token check (401), another name is refused before it (403).
  const status = (host: string) => run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Host: ${host}`, `http://127.0.0.1:${port}/v1/me`], { encoding: 'utf8' }).then((r) => r.stdout);
  t.equal(await status(`browserd.example:${port}`), '401', 'a request for browserd.example is served');
  t.equal(await status(`elsewhere.example:${port}`), '403', 'a request for another name is refused');
});
