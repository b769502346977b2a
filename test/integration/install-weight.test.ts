/**
 * `npm start` in a fresh clone installs no dev dependency, proved offline (the suite may run without a network):
 * start.sh installs with `--omit=dev`; what that installs, read from package-lock.json (what `npm ci` installs)
 * and from npm's own view of node_modules, holds no test or benchmark tool; and every package the daemon's code
 * and its start path import at run time is a production dependency, so such an install cannot miss one.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Test runners, test-only libraries and the peers the benchmarks measure against: none may reach production. */
const DEV_ONLY = [
  'tap',
  'typescript',
  'playwright',
  'playwright-core',
  '@playwright/mcp',
  'openapi-typescript',
  '@modelcontextprotocol/conformance',
  'fast-check',
  '@crawlee/cheerio',
  '@crawlee/playwright',
  '@crawlee/core',
  'crawlee',
  'puppeteer',
  'puppeteer-core',
  'chrome-remote-interface',
  'hoodiecrow-imap',
  '@apidevtools/swagger-parser',
  '@redocly/openapi-core',
  'pdf-lib',
];

/** Where the daemon's run-time code lives (test/, bench/ and scripts/ are not run by `npm start`, bar the build). */
const RUNTIME_DIRS = ['daemon', 'protocol', 'storage', 'bin', 'injected'];

// ---------------------------------------------------------------------------------------------------------------
// start.sh: the commands it runs

/** The shell commands of a script, comments and blank lines dropped, `a && b` and `if x; then y; fi` split. */
function commands(script: string): string[] {
  return script
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((l) => l.split(/\s*(?:&&|\|\||;)\s*/))
    .map((c) => c.replace(/^(?:if|then|else|exec)\s+/, '').trim())
    .filter(Boolean);
}

const startSh = read('scripts/start.sh');
const startCommands = commands(startSh);
/** npm's install commands (`npm ci`, `npm install`, `npm i`) among them. */
const installs = startCommands.filter((c) => /^npm\s+(ci|install|i|add)\b/.test(c));
/** Scripts of package.json start.sh runs (`npm run build`), by name. */
const runScripts = startCommands.flatMap((c) => /^npm\s+run(?:\s+--\S+)*\s+([\w:-]+)/.exec(c)?.[1] ?? []);
/** The `node …` commands start.sh runs, its own and those of the scripts it runs. */
const nodeCommands = [...startCommands, ...runScripts.flatMap((s) => commands(pkg.scripts[s] ?? ''))].filter((c) => /^node\s/.test(c));
/** For each node command: what it preloads (`--import X`) and the file it runs. */
const nodeRuns = nodeCommands.map((c) => {
  const words = c.split(/\s+/).slice(1);
  const preloads: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const flag = /^--(?:import|loader|experimental-loader|require)(?:=(.+))?$/.exec(w) ?? (w === '-r' ? [w, undefined] : null);
    if (flag) preloads.push(flag[1] ?? words[++i]);
    else if (!w.startsWith('-') && /\.(c|m)?(js|ts)$/.test(w)) {
      file = w;
      break;
    }
  }
  return { command: c, preloads, file };
});

t.test('start.sh installs with --omit=dev, and only that way', async (t) => {
  t.ok(installs.length >= 1, `start.sh runs an npm install (${startCommands.join(' | ')})`);
  for (const c of installs) {
    t.match(c, /\s--omit(=|\s+)dev\b/, `"${c}" omits dev dependencies`);
    t.notMatch(c, /--include(=|\s+)dev|--production(=|\s+)false|--dev\b/, `"${c}" does not bring them back`);
  }
  // npx fetches a missing package from the registry on the spot: the start path must not run one.
  t.notOk(startCommands.some((c) => /^npx\s/.test(c)), 'start.sh runs no npx');
  t.same(runScripts, ['build'], 'start.sh runs the build script of package.json');
  t.same(
    nodeRuns.map((r) => r.file),
    ['bin/browserd.js', 'scripts/build-injected.ts', 'scripts/build-daemon.ts'],
    'the files Node runs on the start path: the daemon and the builds of the in-page script and of the daemon bundle',
  );
});

// ---------------------------------------------------------------------------------------------------------------
// package-lock.json: what `npm ci --omit=dev` installs

/** A lock key's package name: `node_modules/a/node_modules/@b/c` -> `@b/c`. */
const nameOf = (key: string) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

/**
 * What `npm ci --omit=dev` installs from this lock: every package not marked `dev`. `optional` ones install
 * when their platform fits; `devOptional` ones (needed both by a dev and by an optional package) install too,
 * since only `--omit=optional` as well would leave them out. Both count here, so nothing installed is missed.
 */
const productionInstall = Object.entries(lock.packages).filter(([key, e]) => key !== '' && !e.dev);
const productionNames = new Set(productionInstall.map(([key]) => nameOf(key)));

t.test('package-lock.json matches package.json, so it describes what npm ci installs', async (t) => {
  const rootEntry = lock.packages[''];
  t.same(rootEntry.dependencies, pkg.dependencies, 'the same production dependencies');
  t.same(rootEntry.devDependencies, pkg.devDependencies, 'the same dev dependencies');
});

t.test('an --omit=dev install from the lock holds no test or benchmark tool', async (t) => {
  const leaks = productionInstall.filter(([key]) => DEV_ONLY.includes(nameOf(key))).map(([key, e]) => `${key} (${e.optional ? 'optional' : e.devOptional ? 'devOptional' : 'production'})`);
  t.same(leaks, [], 'npm ci --omit=dev would install these test or benchmark tools');
  for (const name of DEV_ONLY) t.notOk(pkg.dependencies[name], `${name} is not a production dependency`);
  // The list above must name what this lock really holds, or the check passes over nothing.
  const held = DEV_ONLY.filter((n) => Object.keys(lock.packages).some((k) => k !== '' && nameOf(k) === n));
  for (const name of ['tap', 'typescript', 'playwright-core', '@playwright/mcp', 'openapi-typescript', '@modelcontextprotocol/conformance']) {
    t.ok(held.includes(name), `the lock holds ${name} (as a dev package)`);
  }
  t.ok(productionInstall.length > 100 && productionInstall.length < Object.keys(lock.packages).length - 100, 'the production install is a real part of the lock, not all or nothing');
});

// ---------------------------------------------------------------------------------------------------------------
// The imports of the code the start path runs

/**
 * The modules a source file loads at run time: static imports and re-exports (not `import type`, `export type`,
 * nor an import whose every name is a type), `import x = require()`, `import()`, `require()`, a
 * `createRequire(…)(…)` call and `require.resolve()`. `typeof import('x')` is a type and does not count.
 */
function runtimeImports(fileName: string, source: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const out: string[] = [];
  const literal = (n: ts.Node | undefined) => (n && ts.isStringLiteralLike(n) ? n.text : undefined);
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      const onlyTypes = c && (c.isTypeOnly || (!c.name && c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!onlyTypes) out.push(literal(n.moduleSpecifier)!);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier) {
      const onlyTypes = n.isTypeOnly || (n.exportClause && ts.isNamedExports(n.exportClause) && n.exportClause.elements.length > 0 && n.exportClause.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) out.push(literal(n.moduleSpecifier)!);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && !n.isTypeOnly) {
      out.push(literal(n.moduleReference.expression)!);
    } else if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && (callee.text === 'require' || callee.text === 'lazyRequire')) ||
        (ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire') ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' && ts.isIdentifier(callee.expression) && callee.expression.text === 'require');
      const spec = literal(n.arguments[0]);
      if (loads && spec !== undefined) out.push(spec);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out.filter((s) => s !== undefined);
}

const SOURCE = /\.(c|m)?(js|ts)$/;

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name === 'generated') continue;
    const p = join(dir, name);
    if (statSync(join(root, p)).isDirectory()) out.push(...sourcesUnder(p));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** A relative import as a repository path that exists (`./x.js` may name `x.ts`, as TypeScript's NodeNext allows). */
function localFile(from: string, spec: string): string | undefined {
  const p = normalize(join(dirname(from), spec));
  const candidates = [p, p.replace(/\.js$/, '.ts'), p.replace(/\.mjs$/, '.mts'), `${p}.ts`, join(p, 'index.ts')];
  return candidates.find((c) => {
    try {
      return statSync(join(root, c)).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Every file the run-time code can load: the run-time directories, the files start.sh has Node run, and every
 * file those import, wherever it lives (a daemon file importing from client/ or scripts/ brings it in).
 */
function runtimeFiles(): string[] {
  const seen = new Set<string>();
  const queue = [...RUNTIME_DIRS.flatMap(sourcesUnder), ...nodeRuns.flatMap((r) => (r.file ? [r.file] : []))];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const spec of runtimeImports(f, read(f))) {
      if (!spec.startsWith('.')) continue;
      const target = localFile(f, spec);
      if (target && !relative(root, join(root, target)).startsWith('..')) queue.push(target);
    }
  }
  return [...seen].sort();
}

/** `@scope/name/sub/path.js` -> `@scope/name`; `name/sub` -> `name`. */
const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

const files = runtimeFiles();
/** Every bare import of the run-time code, with the files that make it (preloads of the start path included). */
const bare = new Map<string, string[]>();
for (const f of files) {
  for (const spec of runtimeImports(f, read(f))) {
    if (spec.startsWith('.') || spec.startsWith('/') || isBuiltin(spec)) continue;
    bare.set(spec, [...(bare.get(spec) ?? []), f]);
  }
}
for (const r of nodeRuns) for (const p of r.preloads) if (!p.startsWith('.') && !p.startsWith('/')) bare.set(p, [...(bare.get(p) ?? []), `${r.command} (--import)`]);

t.test('the import reader sees what the rule below relies on', async (t) => {
  // A rule over an empty or blind list passes whatever the code does: prove the reader first.
  const sample = [
    "import type { A } from 'types-only';",
    "import { type B, type C } from 'types-only-too';",
    "export type { D } from 'types-again';",
    "import { type E, real } from 'mixed';",
    "import def from 'default-import';",
    "import 'side-effect';",
    "export * from 're-export';",
    "type F = typeof import('type-position');",
    "const g = await import('dynamic');",
    "const h = createRequire(import.meta.url)('cjs-via-create-require');",
    "const req = createRequire(import.meta.url); const i = require('cjs'); const j = require.resolve('resolved');",
    "import k = require('import-equals');",
    "const l = lazyRequire<typeof import('x')>('lazy');",
  ].join('\n');
  t.same(runtimeImports('sample.ts', sample).sort(), ['cjs', 'cjs-via-create-require', 'default-import', 'dynamic', 'import-equals', 'lazy', 'mixed', 're-export', 'resolved', 'side-effect'].sort());
  t.ok(files.includes('bin/browserd.js') && files.includes('scripts/build-injected.ts'), 'the start path files are read');
  t.ok(files.includes('daemon/server/mcp.ts') && files.includes('injected/index.ts') && files.length > 200, `the run-time code is read (${files.length} files)`);
  t.notOk(files.some((f) => f.startsWith('test/') || f.startsWith('bench/')), 'no test or benchmark file is read');
  // Imports the daemon makes in each form the reader knows: static, createRequire, require, dynamic, preload.
  for (const spec of ['@modelcontextprotocol/sdk/server/index.js', 'graphql', 'robots-parser', 'jsdom', 'pdfjs-dist/legacy/build/pdf.mjs', 'tsx/esm/api', 'tsx', 'esbuild']) {
    t.ok(bare.has(spec), `the reader finds ${spec}`);
  }
});

t.test('every package the run-time code imports is a production dependency', async (t) => {
  const notProduction = [...bare].filter(([spec]) => !pkg.dependencies[packageOf(spec)]).map(([spec, from]) => `${spec} (imported by ${[...new Set(from)].join(', ')})`);
  t.same(notProduction, [], 'these imports would be missing after npm ci --omit=dev: move the package to "dependencies"');
  const notInstalled = [...new Set([...bare.keys()].map(packageOf))].filter((name) => !productionNames.has(name));
  t.same(notInstalled, [], 'every imported package is in the --omit=dev install of the lock');
  t.ok(pkg.dependencies.tsx, 'tsx is a production dependency: bin/browserd.js runs the TypeScript through it');
});

// ---------------------------------------------------------------------------------------------------------------
// npm's own view

t.test("npm's own --omit=dev tree (read from node_modules, offline) agrees", async (t) => {
  const json = await new Promise<string>((resolve, reject) => {
    execFile('npm', ['ls', '--omit=dev', '--all', '--json', '--offline'], { cwd: root, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      // npm ls exits 1 on a tree problem (an extraneous package) but still prints the tree; only no JSON fails.
      if (stdout.trim().startsWith('{')) resolve(stdout);
      else reject(err ?? new Error('npm ls printed no JSON'));
    });
  });
  const names = new Set<string>();
  const walk = (node: { dependencies?: Record<string, { missing?: boolean; dependencies?: any }> }) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (child.missing) continue;
      names.add(name);
      walk(child);
    }
  };
  walk(JSON.parse(json));
  t.ok(names.size > 100, `npm lists a production tree (${names.size} packages)`);
  t.same(DEV_ONLY.filter((n) => names.has(n)), [], 'npm counts no test or benchmark tool as production');
  t.same([...new Set([...bare.keys()].map(packageOf))].filter((n) => !names.has(n)), [], 'npm counts every imported package as production');
});
