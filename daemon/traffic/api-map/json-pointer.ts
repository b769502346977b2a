/**
 * JSON pointers (RFC 6901), one module for both sides: the map builder writes them (where a cursor, a next link
 * or a CSRF value sits) and browser_api_call reads and sets values by them.
 */
const MAX_DEPTH = 8;
const MAX_VALUES = 5000;

const escape = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every string or number in `v` with its pointer and the key it sits under; arrays give their first items only. */
export function scalars(v: unknown): { pointer: string; key: string; value: string }[] {
  const out: { pointer: string; key: string; value: string }[] = [];
  const walk = (x: unknown, pointer: string, key: string, depth: number) => {
    if (out.length >= MAX_VALUES || depth > MAX_DEPTH) return;
    if (typeof x === 'string' || typeof x === 'number') out.push({ pointer, key, value: String(x) });
    else if (Array.isArray(x)) x.slice(0, 20).forEach((y, i) => walk(y, `${pointer}/${i}`, key, depth + 1));
    else if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) walk(y, `${pointer}/${escape(k)}`, k, depth + 1);
  };
  walk(v, '', '', 0);
  return out;
}

/** A pointer's reference tokens, unescaped (`/a~1b/c` -> ['a/b', 'c']). */
function tokens(pointer: string): string[] {
  return pointer.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a pointer in a parsed body, or undefined. */
export function atPointer(body: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? body : (body as Record<string, unknown> | undefined)?.[''];
  if (!pointer.startsWith('/')) return undefined;
  let cur: unknown = body;
  for (const key of tokens(pointer)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A JSON body with `value` set at a pointer (/csrf, /meta/token), objects made on the way; the input is not changed. */
export function withPointer(body: unknown, pointer: string, value: string): unknown {
  const keys = tokens(pointer.startsWith('/') ? pointer : `/${pointer}`);
  const root: Record<string, unknown> = body && typeof body === 'object' && !Array.isArray(body) ? structuredClone(body as Record<string, unknown>) : {};
  let cur = root;
  for (const k of keys.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys.at(-1)!] = value;
  return root;
}
