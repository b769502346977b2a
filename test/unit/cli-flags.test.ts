/** Every flag daemon/config.ts reads is one `browserd serve` accepts: a flag config reads but the parser refuses is unreachable. */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { SERVE_FLAGS } from '../../bin/args.js';

const config = readFileSync(new URL('../../daemon/config.ts', import.meta.url), 'utf8');
const read = new Set([...config.matchAll(/flags(?:\.([a-z]+)|\['([a-z-]+)'\])/g)].map((m) => m[1] ?? m[2]));
t.ok(read.size > 10, 'found the flags config reads');
for (const flag of read) t.ok(SERVE_FLAGS[flag], `--${flag} is accepted by serve`);
