/** Layering is checked here, not by review: injected/ imports nothing from Node; tools/ no MCP SDK; storage/ nothing from daemon/. */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
