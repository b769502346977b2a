/**
 * Layering is checked here, not by review: injected/ imports nothing from Node; tools/ no MCP SDK and no CDP
 * layer; policy/ nothing from tools/; server/ only the outside of the pipeline and no feature; only main.ts
 * imports a feature; storage/ nothing from daemon/; no import circle of files, nor of daemon/'s folders.
 */
import t from 'tap';
import { featureFaces, repoRoot, sourceFiles } from '../fixtures/source-files.js';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const root = repoRoot;
const files = sourceFiles;


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
  t.ok(localImports('daemon/tools/dispatch.ts').includes('daemon/call/registry'), 'dispatch imports the registry type');
  t.ok(files('daemon/server').some((f) => localImports(f).includes('daemon/call/call')), 'the server imports the call types');
  t.ok(localImports('daemon/main.ts').includes('daemon/tools/dispatch'), 'main.ts imports dispatch');
  t.ok(files('daemon/tools').length > 10 && files('daemon/policy').length > 3);
});

t.test('only main.ts wires the pipeline and the features: it alone imports dispatch.ts and any feature.ts', async (t) => {
  // Features that run tools are handed a CallTool, and ones that read definitions a ToolLookup; the registry is
  // filled from the features by main.ts. No file but main.ts imports the pipeline's entry or a feature's face.
  const featureFiles = files('daemon').filter((f) => f.endsWith('/feature.ts') && f !== 'daemon/server/feature.ts');
  t.ok(featureFiles.length >= 2, `features are there (${featureFiles.join(', ')})`);
  for (const f of [...files('daemon'), ...files('bin')]) {
    const mine = localImports(f);
    if (mine.includes('daemon/tools/dispatch')) t.equal(f, 'daemon/main.ts', `${f} imports dispatch.ts`);
    for (const feature of featureFiles) if (mine.includes(feature.replace(/\.ts$/, ''))) t.equal(f, 'daemon/main.ts', `${f} imports ${feature}`);
  }
  t.notOk(files('daemon').some((f) => f.endsWith('tools/registry.ts')), 'no static list of every tool is left');
});

t.test("the HTTP server and the pipeline import no feature: a feature's routes and tools reach them from main.ts", async (t) => {
  // A feature is a folder with a feature.ts. server/, http/ and call/ sit below every feature: a feature's
  // routes may use them, never the other way round, so the server can be read without any feature.
  const featureRooms = files('daemon').filter((f) => f.endsWith('/feature.ts') && f !== 'daemon/server/feature.ts').map((f) => `${dirname(f)}/`);
  t.ok(featureRooms.includes('daemon/crawl/') && featureRooms.includes('daemon/tools/'), 'the crawl and browser features are found');
  for (const f of [...files('daemon/server'), ...files('daemon/http'), ...files('daemon/call')]) {
    for (const i of localImports(f)) for (const room of featureRooms) t.notOk(i.startsWith(room), `${f} imports ${i}`);
  }
});

t.test("features reach each other only through what they declare: no file outside a feature imports its tools or routes", async (t) => {
  // A feature's face is its feature.ts and the tool and route files that feature.ts lists. Another feature
  // uses its service key, a lookup main.ts hands in, or a shared part below; never the face itself.
  const features = files('daemon').filter((f) => f.endsWith('/feature.ts') && f !== 'daemon/server/feature.ts');
  let faces = 0;
  for (const feature of features) {
    const room = `${dirname(feature)}/`;
    const face = new Set([feature.replace(/\.ts$/, ''), ...localImports(feature).filter((i) => i.startsWith(room))]);
    faces += face.size;
    for (const f of files('daemon')) {
      if (f.startsWith(room) || f === 'daemon/main.ts') continue;
      for (const i of localImports(f)) t.notOk(face.has(i), `${f} imports ${i}, part of the ${room} feature's face`);
    }
  }
  t.ok(faces > features.length, 'the faces hold tool and route files, not only feature.ts');
});


/** The tools (the browser's in daemon/tools/ and every feature's face) and the pipeline that runs them: the rules below hold for all. */
const toolsAndPipeline = () => [...new Set([...files('daemon/tools'), ...files('daemon/call'), ...featureFaces()])];

t.test('daemon/call/ (the pipeline) imports no tool and no feature: only the platform, browsers and policy', async (t) => {
  const below = ['daemon/call/', 'daemon/platform', 'daemon/browser/', 'daemon/policy/'];
  t.ok(files('daemon/call').length >= 10, 'the pipeline folder is there');
  for (const f of files('daemon/call')) for (const i of localImports(f)) if (i.startsWith('daemon/')) t.ok(below.some((b) => i.startsWith(b)), `${f} imports ${i}`);
});

t.test('no tool reaches into the CDP layer (tools speak to tabs through daemon/browser)', async (t) => {
  t.ok(toolsAndPipeline().includes('daemon/vault/tools.ts') && toolsAndPipeline().includes('daemon/crawl/routes.ts'), "features' tool and route files are checked too");
  for (const f of toolsAndPipeline()) for (const i of localImports(f)) t.notOk(i.startsWith('daemon/cdp/'), `${f} imports ${i}`);
});

t.test('daemon/policy/ imports nothing from daemon/tools/ or daemon/call/ (the gate takes plain inputs)', async (t) => {
  for (const f of files('daemon/policy')) for (const i of localImports(f)) t.notOk(i.startsWith('daemon/tools/') || i.startsWith('daemon/call/'), `${f} imports ${i}`);
});

t.test('daemon/server/ uses only the outside of the pipeline: call types, the registry, schemas and the response builder', async (t) => {
  const core = new Set(['daemon/call/call', 'daemon/call/define', 'daemon/call/registry', 'daemon/call/services', 'daemon/call/schema', 'daemon/call/output', 'daemon/call/response']);
  for (const f of files('daemon/server')) {
    for (const i of localImports(f)) if (i.startsWith('daemon/tools/') || i.startsWith('daemon/call/')) t.ok(core.has(i), `${f} imports ${i}`);
  }
});

t.test('daemon/tools/ and daemon/call/ import no MCP SDK (one way in: dispatch; one way out: the response builder)', async (t) => {
  for (const f of toolsAndPipeline()) for (const i of imports(f)) t.notOk(i.startsWith('@modelcontextprotocol/'), `${f} imports ${i}`);
});

t.test('storage/ imports nothing from daemon/', async (t) => {
  for (const f of files('storage')) for (const i of imports(f)) t.notOk(i.includes('daemon/'), `${f} imports ${i}`);
});

t.test('nothing imports chrome-remote-interface: CDP runs over the launch pipe', async (t) => {
  const importers = ['daemon', 'bin', 'storage', 'protocol'].flatMap(files).filter((f) => imports(f).includes('chrome-remote-interface'));
  t.same(importers, [], 'CDP goes over the launch pipe, spoken by daemon/cdp itself');
});

t.test('tools and the pipeline speak to a tab in verbs (daemon/browser), never in raw CDP', async (t) => {
  for (const f of toolsAndPipeline()) {
    const src = readFileSync(join(root, f), 'utf8');
    // A feature's socket sends on its WebSocket; a CDP command names its domain and method ('Page.navigate').
    const cdp = f.startsWith('daemon/tools/') || f.startsWith('daemon/call/') ? /\.send(MayFail)?\(/ : /\.send(MayFail)?\(\s*['"`][A-Z][A-Za-z]*\.[a-z]/;
    t.notMatch(src, cdp, `${f} sends CDP itself`);
  }
});

/**
 * Import circles (issue 35). A circle ties its files into one unit that can be read, tested and changed only
 * whole; these rules keep new ones out. Every relative import counts, `import type` too: a type-only circle
 * still means neither file can be understood without the other.
 */

/** Files of these folders, as repository paths without the extension, each with the ones it imports. */
function importGraph(dirs: string[]): Map<string, string[]> {
  const nodes = dirs.flatMap(files).map((f) => f.replace(/\.ts$/, ''));
  const known = new Set(nodes);
  return new Map(nodes.map((n) => [n, [...new Set(localImports(`${n}.ts`))].filter((i) => known.has(i))]));
}

/** The strongly connected components that hold a circle (two or more files, or a file importing itself); Tarjan. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

const describeCircles = (cs: string[][]) => cs.map((c) => `[${c.length} files] ${c.join(', ')}`).join('\n');

t.test('the circle finder finds circles and only circles (so the rules below cannot pass on a blind reader)', async (t) => {
  t.same(circles(new Map([['a', ['b']], ['b', ['a']]])), [['a', 'b']], 'a -> b -> a is a circle');
  t.same(circles(new Map([['a', ['a']]])), [['a']], 'a file importing itself is a circle');
  const dag = new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []], ['d', ['a', 'c']]]);
  t.same(circles(dag), [], 'a DAG (with a diamond) has none');
  const two = new Map([['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', ['e']], ['e', ['d']], ['f', ['a']]]);
  t.same(circles(two).sort(), [['a', 'b', 'c'], ['d', 'e']], 'two circles joined by one arrow stay two');
  // And on the real tree: the reader sees real arrows (the graph is not empty of edges).
  const real = importGraph(['daemon/read']);
  t.ok([...real.values()].some((e) => e.length > 0), 'daemon/read/ files import each other');
});

const PRODUCT = ['daemon', 'storage', 'protocol', 'injected', 'bin'];

t.test('the product holds no import circle: daemon/, storage/, protocol/, injected/ and bin/', async (t) => {
  // Type-only imports count: a circle of types is still two files that cannot be understood one at a time.
  const all = circles(importGraph(PRODUCT));
  t.same(all, [], `import circles (break each by handing the dependency in, or moving the shared word down):\n${describeCircles(all)}`);
});

/** daemon/'s rooms: a first-level folder (daemon/crawl/) or a file at its top (daemon/main). */
const roomOf = (file: string) => {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
};

/** The graph of daemon/'s rooms: an arrow where any file of one imports any file of the other. */
function roomGraph(): Map<string, string[]> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, deps] of importGraph(['daemon'])) {
    const from = roomOf(file);
    if (!rooms.has(from)) rooms.set(from, new Set());
    for (const d of deps) if (roomOf(d) !== from) rooms.get(from)!.add(roomOf(d));
  }
  return new Map([...rooms].map(([r, to]) => [r, [...to]]));
}

t.test('no folder of daemon/ imports another that imports it back, however far round (no arrow runs back up)', async (t) => {
  const loops = circles(roomGraph());
  t.same(loops, [], `folders of daemon/ that import each other round a loop (hand the dependency in, or move the shared part down):\n${describeCircles(loops)}`);
  // The reader sees rooms and arrows (a blind one would find no loop at all).
  const graph = roomGraph();
  t.ok(graph.get('daemon/main')!.includes('daemon/server/'), 'main.ts -> server/ is an arrow');
});
