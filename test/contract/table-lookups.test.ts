/**
 * No lookup keyed by an outside string reads a plain-object table directly: `TABLE[key]` answers 'constructor',
 * '__proto__' or 'toString' with what Object.prototype holds (a tool name once turned that into HTTP 500). The
 * source is walked for module-level object-literal tables and every computed index into one; each must go
 * through own() (protocol/own.ts) unless its key is a closed union checked where it enters, listed below.
 */
import t from 'tap';
import { repoRoot, sourceFiles } from '../fixtures/source-files.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { own } from '../../protocol/own.js';

const repo = repoRoot;
const sources = sourceFiles;


/** Tables whose key is the daemon's own closed union (typed, and validated by schema or code where it enters). */
const CLOSED_KEYS = new Set([
  'KIND_EXT', // a DocKind the detector chose
  'providerNames', // a Provider from the model catalog
  'PROVIDER_TURNS', // the same
  'agents', // a URL protocol checked to be http: or https: first
  'STRICTNESS', // a stored rule's access, one of three
  'QUOTAS', // a quota name typed by the caller's code
  'ERROR_CODES', // a BrowserdError code, from the closed set
  'REASONS', // a stored hand-off reason
  'STATUS_TEXT', // a status the daemon chose
  'EXPORT_CONTENT_TYPES', // a format checked against EXPORT_FORMATS first
  'THREAD_ENTRIES', // a worker name in the daemon's code
  'TAKES', // an action the schema's enum admitted
  'STOP_WORDS', // the scroll's own stop reason
  'FILES', // a format the schema's enum admitted
  'GATED', // a challenge action the schema's enum admitted
  'MOUSE_TYPE', // a live-view event checked by oneOf (viewer/messages.ts)
]);

const files = ['daemon', 'storage', 'protocol'].flatMap(sources);
const text = new Map(files.map((f) => [f, readFileSync(join(repo, f), 'utf8')]));
const tables = new Set<string>();
for (const src of text.values()) for (const m of src.matchAll(/^(?:export )?const ([A-Za-z_$][\w$]*)(?:\s*:\s*[^=\n]+)?\s*=\s*(?:Object\.freeze\()?\{/gm)) tables.add(m[1]!);

t.test('the walk finds the tables and their lookups', async (t) => {
  t.ok(files.length > 100);
  for (const name of ['LENGTH_ONLY', 'NAMED', 'REFUSED', 'MIME', 'ERROR_CODES']) t.ok(tables.has(name), `${name} is seen as a table`);
});

t.test('every computed lookup into a plain-object table goes through own()', async (t) => {
  const direct: string[] = [];
  for (const [f, src] of text) {
    for (const name of tables) {
      if (CLOSED_KEYS.has(name) || !src.includes(name)) continue;
      for (const m of src.matchAll(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?:\\?\\.)?\\[([^\\]]+)\\]`, 'g'))) {
        if (/^\s*(['"`][^'"`]*['"`]|\d+)\s*$/.test(m[1]!)) continue;
        // A write at module set-up (keys.ts adds F1-F12) is no lookup.
        if (/^\s*=[^=]/.test(src.slice(m.index! + m[0].length))) continue;
        direct.push(`${f}:${src.slice(0, m.index).split('\n').length} reads ${name}[${m[1]}]: use own(${name}, ...)`);
      }
      if (new RegExp(`\\bin ${name}\\b\\)`).test(src)) direct.push(`${f} tests membership in ${name} with \`in\`: use Object.hasOwn`);
    }
  }
  t.same(direct, [], 'no direct lookup');
});

t.test('own() answers own entries only', async (t) => {
  const table: Record<string, number> = { a: 1 };
  for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) t.equal(own(table, k), undefined, k);
  t.equal(own(table, 'a'), 1);
  t.equal(own(table, undefined), undefined);
});
