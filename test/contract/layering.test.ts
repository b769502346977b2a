/**
 * Layering is checked here, not by review: injected/ imports nothing from Node; tools/ no MCP SDK and no CDP
 * layer; policy/ nothing from tools/; server/ only the core of tools/; storage/ nothing from daemon/.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const p = join(dir, name);
    if (name === 'generated' || name === 'node_modules') continue;
    if (statSync(join(root, p)).isDirectory()) out.push(...files(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

function imports(file: string): string[] {
  const src = readFileSync(join(root, file), 'utf8');
  return [...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);
}

t.test('injected/ imports nothing from Node or the daemon', async (t) => {
  for (const f of files('injected')) {
    for (const i of imports(f)) {
      t.notOk(i.startsWith('node:') || /^(fs|path|os|http|crypto|child_process)$/.test(i), `${f} imports ${i}`);
      t.notOk(i.includes('daemon/') || i.includes('storage/'), `${f} imports ${i}`);
    }
  }
});

/** Relative imports of a file, as repository paths without the extension (daemon/cdp/connection). */
function localImports(file: string): string[] {
  return imports(file)
    .filter((i) => i.startsWith('.'))
    .map((i) => normalize(join(dirname(file), i)).replace(/\\/g, '/').replace(/\.(js|ts)$/, ''));
}

t.test('the import reader sees what the rules below rely on', async (t) => {
  // A rule over an empty list passes whatever the code does: prove the readers find real imports first.
  t.ok(localImports('daemon/tools/dispatch.ts').includes('daemon/tools/registry'), 'dispatch imports the registry');
  t.ok(files('daemon/server').some((f) => localImports(f).includes('daemon/tools/dispatch')), 'the server imports dispatch');
  t.ok(files('daemon/tools').length > 10 && files('daemon/policy').length > 3);
});

t.test('daemon/tools/ does not reach into the CDP layer (it speaks to tabs through daemon/browser)', async (t) => {
  for (const f of files('daemon/tools')) for (const i of localImports(f)) t.notOk(i.startsWith('daemon/cdp/'), `${f} imports ${i}`);
});

t.test('daemon/policy/ imports nothing from daemon/tools/ (the gate takes plain inputs)', async (t) => {
  for (const f of files('daemon/policy')) for (const i of localImports(f)) t.notOk(i.startsWith('daemon/tools/'), `${f} imports ${i}`);
});

t.test('daemon/server/ uses only the core of daemon/tools/: dispatch, registry, response', async (t) => {
  const core = new Set(['daemon/tools/dispatch', 'daemon/tools/registry', 'daemon/tools/response']);
  for (const f of files('daemon/server')) {
    for (const i of localImports(f)) if (i.startsWith('daemon/tools/')) t.ok(core.has(i), `${f} imports ${i}`);
  }
});

t.test('daemon/tools/ imports no MCP SDK (one way in: dispatch; one way out: the response builder)', async (t) => {
  for (const f of files('daemon/tools')) for (const i of imports(f)) t.notOk(i.startsWith('@modelcontextprotocol/'), `${f} imports ${i}`);
});

t.test('storage/ imports nothing from daemon/', async (t) => {
  for (const f of files('storage')) for (const i of imports(f)) t.notOk(i.includes('daemon/'), `${f} imports ${i}`);
});

t.test('nothing imports chrome-remote-interface: CDP runs over the launch pipe', async (t) => {
  const importers = ['daemon', 'bin', 'storage', 'protocol'].flatMap(files).filter((f) => imports(f).includes('chrome-remote-interface'));
  t.same(importers, [], 'CDP goes over the launch pipe, spoken by daemon/cdp itself');
});

t.test('daemon/tools/ speaks to a tab in verbs (daemon/browser), never in raw CDP', async (t) => {
  for (const f of files('daemon/tools')) {
    const src = readFileSync(join(root, f), 'utf8');
    t.notMatch(src, /\.send(MayFail)?\(/, `${f} sends CDP itself`);
  }
});
