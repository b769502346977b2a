/** JSON pointers (RFC 6901) to the scalar values of a parsed body, walked to a bounded depth. */
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
