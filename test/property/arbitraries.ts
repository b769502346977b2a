/**
 * Arguments for a tool, generated from its JSON Schema (toJsonSchema of its TypeBox input) on fast-check
 * arbitraries, in three kinds:
 *   valid       what the schema accepts, with values a fixture world can answer (its tabs, refs, loopback URLs);
 *   near-valid  a valid object with exactly one thing wrong (a type, a bound, a pattern, a missing or extra key);
 *   hostile     what an attacker or a broken client sends: huge and control-character strings, nesting past the
 *               daemon's depth bound, big arrays, __proto__/constructor keys, refs and tabs that do not exist or
 *               are another user's, arguments that are no object at all, and (REST) bodies that are no JSON.
 * Only the names in Targets (loopback URLs of the fixture site and names under .test) are ever generated where a
 * field names an address, so no case can make the daemon or its Chromium reach a public or private address.
 */
import fc from 'fast-check';

/** What a generated value may point at; filled in by the harness once the fixture world is up. */
export interface Targets {
  /** The only addresses generated: the fixture site's loopback URLs and names under .test. */
  urls: string[];
  /** The caller's own tabs (exist now). */
  tabs: string[];
  /** Tabs the caller must not reach: another user's, and ids nobody has. */
  foreignTabs: string[];
  /** Refs in the caller's tab, plus ones that do not exist (e999, f3:e1). */
  refs: string[];
}

export type Kind = 'valid' | 'near' | 'hostile';

/** One generated call: its arguments (any JSON value), or for REST a raw body text that may not be JSON at all. */
export interface Case {
  kind: Kind;
  /** What was done to the arguments, for the counterexample a failure prints. */
  shape: string;
  args: unknown;
  /** REST only: sent as the body instead of JSON.stringify(args). */
  rawBody?: string;
}

type Schema = Record<string, any>;

/** Marks an optional key left out of a generated object. */
const ABSENT = Symbol('absent');

/** Fields whose strings name an address: generated only from Targets.urls. */
const ADDRESS = /^(url|urls|startUrl|loginUrl|sitemap|endpoint|feeds|origin|base|href|link)$/i;
/** Fields that make a call wait: kept near their minimum, so a valid value cannot make a call outlast the bound. */
const DURATION = /(timeout|wait|delay|noNewFor|time)(Ms|S)?$|^minutes$/i;
const REFS = /^(ref|fromRef|toRef)$/;
/** Depths past MAX_ARGS_DEPTH (daemon/call/validate.ts: 32); past ~2,500 JSON.stringify itself overflows, so REST bodies go deeper as text (nestedText). */
const DEEP_LEVELS = [33, 64, 1_000, 2_000];

/** A value nested `depth` levels deep, built without recursion (objects and arrays alternating). */
export function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** The same as JSON text, for REST bodies deeper than JSON.stringify would walk. */
export function nestedText(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const controlChars = fc.array(fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), { minLength: 1, maxLength: 40 }).map((a) => a.join('') + '\u2028\u2029\u202e\ufeff\u0000');

/** Values no schema should take from a stranger without a clear refusal. */
export function hostileValue(t: Targets): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant('x'.repeat(100_000)),
    fc.constant('é'.repeat(60_000)),
    controlChars,
    fc.constantFrom<unknown>(null, true, 0, -1, -0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '', [], {}, '0', 'true', 'null'),
    fc.constantFrom(...DEEP_LEVELS).map(nested),
    fc.constantFrom(10_000, 100_000).map((n) => new Array(n).fill('a')),
    fc.constant(protoBomb()),
    fc.constantFrom('e999', 'f3:e1', 'e0', 'f0:e1', 'e-1', 'e99999999999', 'E1', ' e1'),
    fc.constantFrom(...t.foreignTabs, 't0', 'default/t1', '../t1', 't1/../../x', '%2e%2e', 'work/t999'),
    fc.constantFrom('javascript:alert(1)', 'file:///etc/passwd', 'chrome://settings', 'view-source:http://127.0.0.1:1/', 'data:text/html,<script>1</script>', 'http://nothing.test:1/', 'http://127.0.0.1:1/', 'ftp://a.test/', '//a.test', 'http://[::1', 'http://%00.test/'),
    fc.string({ unit: 'binary', maxLength: 30 }),
    // Lone surrogates survive JSON (as \ud800 escapes) but are no UTF-8: CDP, LMDB keys and file names must cope.
    fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', 't1\ud800'),
    fc.constantFrom('t1\u0000', 'T1', 't01', 't1 ', 't99999999999', 'e1\n', 'f1:e1:e2'),
    fc.constantFrom('../../etc/passwd', '/etc/passwd', '..', '.', 'C:\\x', 'con', 'a/b', '%2F..%2F', '~root', 'x'.repeat(300) + '.pdf'),
  );
}

/** An object whose own keys are __proto__, constructor and prototype (JSON.parse makes them own keys). */
export function protoBomb(): Record<string, unknown> {
  return JSON.parse('{"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},"hasOwnProperty":1,"toString":"x"}');
}

const cap = (n: number | undefined, limit: number) => (n === undefined ? limit : Math.min(n, limit));

/** Values the schema accepts; `name` is the property the schema sits under (picks targets for tab, ref, url...). */
export function valid(schema: Schema, t: Targets, name = ''): fc.Arbitrary<unknown> {
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => valid(s, t, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'object':
      return validObject(schema, t);
    case 'array': {
      const items = valid(schema.items ?? {}, t, name);
      const opts = { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, cap(schema.maxItems, 4)) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...opts, selector: (v) => JSON.stringify(v) }) : fc.array(items, opts);
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const wide = cap(schema.maximum, min + 1000);
      // A valid duration stays near its minimum: a wait is tested by its bound, not by sitting in it.
      const max = DURATION.test(name) ? Math.min(wide, min + (/S$|minutes/.test(name) ? 1 : 1500)) : Math.min(wide, min + 50);
      return schema.type === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'string':
      return validString(schema, t, name);
    default:
      return fc.constantFrom<unknown>('x', 1, true, null);
  }
}

function validString(schema: Schema, t: Targets, name: string): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = cap(schema.maxLength, 60);
  const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Infinity);
  if (name === 'tab') return fc.constantFrom(...t.tabs, ...t.tabs, ...t.foreignTabs);
  if (REFS.test(name)) return fc.constantFrom(...t.refs);
  if (ADDRESS.test(name)) return fc.constantFrom(...t.urls);
  // A profile is a whole browser: one named profile, so valid runs do not launch a Chromium per generated name.
  if (name === 'profile') return fc.constant('work');
  if (name === 'selector' || name === 'css' || name === 'container') return fc.constantFrom('form', 'a', 'button', '#name', 'input[type=email]', 'h1', 'nothing-here', 'a[href');
  if (name === 'cron') return fc.constantFrom('* * * * *', '0 3 * * 1', '*/5 * * * *');
  if (schema.pattern) return matching(schema.pattern).filter(fits);
  const len = { minLength: min, maxLength: Math.max(min, max) };
  // fast-check's units never make a lone surrogate; a schema's string accepts one (JSON carries it escaped).
  const surrogate = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), ...len });
  return fc.oneof(fc.string(len), fc.string({ unit: 'grapheme', ...len }), fc.string({ unit: 'binary', ...len }), surrogate).filter(fits);
}

/**
 * Strings a pattern matches. fast-check cannot generate from lookaheads, so those are dropped for generating
 * and the whole pattern is checked on what comes out (the lookaheads in our schemas exclude few strings).
 */
function matching(pattern: string): fc.Arbitrary<string> {
  const whole = new RegExp(pattern);
  const generable = pattern.replace(/\(\?[=!](?:[^()\\]|\\.|\([^()]*\))*\)/g, '');
  return fc.stringMatching(new RegExp(generable)).filter((s) => whole.test(s));
}

function validObject(schema: Schema, t: Targets): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  // Each optional key is left out two times in three: tools refuse many pairs of options (a ref and a point,
  // a context and a profile), and arguments with few options get past those checks to the handler more often.
  const entries = Object.entries(props).map(([k, s]) => {
    const v = valid(s, t, k);
    return fc.tuple(fc.constant(k), required.has(k) ? v : fc.oneof({ weight: 2, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: v }));
  });
  let rec: fc.Arbitrary<Record<string, unknown>> = fc.tuple(...entries).map((kv) => Object.fromEntries(kv.filter(([, v]) => v !== ABSENT)));
  const pattern = schema.patternProperties && Object.entries(schema.patternProperties as Record<string, Schema>)[0];
  if (pattern) {
    const [keyPattern, valueSchema] = pattern;
    const keys = keyPattern === '^(.*)$' ? fc.string({ minLength: 1, maxLength: 12 }) : /ref|e\(/.test(keyPattern) ? fc.constantFrom(...t.refs) : matching(keyPattern);
    const dict = fc.dictionary(keys, valid(valueSchema, t, ''), { minKeys: schema.minProperties ?? 0, maxKeys: cap(schema.maxProperties, 4) });
    rec = fc.tuple(rec, dict).map(([a, b]) => ({ ...b, ...a }));
  }
  return rec;
}

/** A value of the wrong JSON type for a schema. */
function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const type = schema.type;
  const all: Record<string, unknown[]> = {
    string: [42, true, ['x'], { s: 'x' }, null],
    integer: ['7', 7.5, true, [1], null, { n: 1 }],
    number: ['7', true, [1], null, {}],
    boolean: ['true', 1, 0, null, []],
    array: ['a,b', 1, { 0: 'a' }, null],
    object: ['{}', 1, [], null, true],
  };
  return fc.constantFrom(...(all[type] ?? [null, 'x', 1]));
}

/** A value of the right type that breaks one of the schema's other rules, when it has one. */
function brokenRule(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const options: unknown[] = [];
  if (schema.enum) options.push('not-one-of-them', String(schema.enum[0]).toUpperCase() + '_');
  if (schema.maxLength !== undefined) options.push('y'.repeat(schema.maxLength + 1));
  if (schema.minLength) options.push('');
  if (schema.pattern) options.push('\u0000 no match \n');
  if (schema.maximum !== undefined) options.push(schema.maximum + 1, 1e15);
  if (schema.minimum !== undefined) options.push(schema.minimum - 1, -1e15);
  if (schema.type === 'integer') options.push(0.5);
  if (schema.maxItems !== undefined) options.push(new Array(schema.maxItems + 1).fill(schema.items?.type === 'string' ? 'a' : 1));
  if (schema.minItems) options.push([]);
  return options.length ? fc.constantFrom(...options) : undefined;
}

/** Valid arguments with exactly one thing wrong. */
export function nearValid(schema: Schema, t: Targets): fc.Arbitrary<Case> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(props);
  const base = valid(schema, t) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: fc.Arbitrary<Case>[] = [
    fc.tuple(base, fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !(k in props))).map(([a, k]) => ({ kind: 'near' as const, shape: `unknown key ${JSON.stringify(k)}`, args: { ...a, [k]: 1 } })),
  ];
  if (names.length) {
    const field = fc.constantFrom(...names);
    mutations.push(
      fc.tuple(base, field).chain(([a, k]) => wrongType(props[k]).map((v) => ({ kind: 'near' as const, shape: `wrong type in ${k}`, args: { ...a, [k]: v } }))),
      fc.tuple(base, field.filter((k) => !!brokenRule(props[k]))).chain(([a, k]) => brokenRule(props[k])!.map((v) => ({ kind: 'near' as const, shape: `rule broken in ${k}`, args: { ...a, [k]: v } }))),
    );
    if (!names.some((k) => brokenRule(props[k]))) mutations.pop();
  }
  const required: string[] = (schema.required ?? []).filter((k: string) => k in props);
  if (required.length) {
    mutations.push(fc.tuple(base, fc.constantFrom(...required)).map(([a, k]) => {
      const { [k]: _gone, ...rest } = a;
      return { kind: 'near' as const, shape: `missing ${k}`, args: rest };
    }));
  }
  return fc.oneof(...mutations);
}

/** Arguments a hostile or broken client sends. `rest`: also bodies that are not JSON or are too deep to parse. */
export function hostile(schema: Schema, t: Targets, rest: boolean): fc.Arbitrary<Case> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(props);
  const base = valid(schema, t) as fc.Arbitrary<Record<string, unknown>>;
  const h = (shape: string, args: unknown, rawBody?: string): Case => ({ kind: 'hostile', shape, args, ...(rawBody !== undefined ? { rawBody } : {}) });
  const shapes: fc.Arbitrary<Case>[] = [
    fc.tuple(base, hostileValue(t)).map(([a, v]) => h('hostile value under an unknown key', { ...a, zz: v })),
    base.map((a) => h('__proto__/constructor keys', { ...protoBomb(), ...a })),
    fc.tuple(base, fc.constantFrom(...DEEP_LEVELS)).map(([a, n]) => h(`nested ${n} deep`, { ...a, deep: nested(n) })),
    fc.constantFrom<unknown>([], ['a'], 'args', 7, true, [{ tab: 't1' }]).map((v) => h('arguments not an object', v)),
  ];
  if (names.length) {
    shapes.push(
      fc.tuple(base, fc.constantFrom(...names), hostileValue(t)).map(([a, k, v]) => h(`hostile value in ${k}`, { ...a, [k]: v })),
      fc.tuple(base, fc.constantFrom(...names), fc.constantFrom(...DEEP_LEVELS)).map(([a, k, n]) => h(`${k} nested ${n} deep`, { ...a, [k]: nested(n) })),
    );
  }
  if (rest) {
    shapes.push(
      fc.constantFrom('', '{', 'null', '"x"', '{"a":1,}', "{'a':1}", '\u0000', '[' .repeat(100_000), nestedText(100_000), `{"s":"${'z'.repeat(3_000_000)}"}`, '{"__proto__":{"polluted":1}}', '{"a":1}{"b":2}', 'NaN').map((raw) =>
        h(`body ${JSON.stringify(raw.slice(0, 20))}${raw.length > 20 ? `... (${raw.length} chars)` : ''}`, undefined, raw),
      ),
    );
  }
  return fc.oneof(...shapes);
}

/** How often each kind is drawn for a tool: weights for valid, near-valid and hostile cases. */
export interface Mix {
  valid: number;
  near: number;
  hostile: number;
}

/** The cases for one tool: its mix of kinds; `rest` adds bodies only REST can carry. */
export function cases(schema: Schema, t: Targets, mix: Mix, rest: boolean): fc.Arbitrary<Case> {
  const arms: { weight: number; arbitrary: fc.Arbitrary<Case> }[] = [];
  if (mix.valid) arms.push({ weight: mix.valid, arbitrary: valid(schema, t).map((args) => ({ kind: 'valid' as const, shape: 'valid', args })) });
  if (mix.near) arms.push({ weight: mix.near, arbitrary: nearValid(schema, t) });
  if (mix.hostile) arms.push({ weight: mix.hostile, arbitrary: hostile(schema, t, rest) });
  return fc.oneof(...arms);
}
