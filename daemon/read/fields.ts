/**
 * `fields` (name -> CSS selector, or {css, attr, all}) read from a page's HTML, and `outputSchema` checks of
 * the result. Selectors and schemas are checked once when a crawl starts, so a typo is the caller's error
 * right away instead of a failure on every page.
 */
import { compile, selectAll, selectOne } from 'css-select';
import { schemaValidator } from '../json-schema.js';
import { BrowserdError } from '../../protocol/errors.js';
import { collapseWs, textContent, type HDocument, type HElement } from './html-tree.js';
import type { CrawlSpec } from '../../protocol/crawl.js';

type FieldSpec = NonNullable<CrawlSpec['fields']>[string];
const norm = (f: FieldSpec) => (typeof f === 'string' ? { css: f } : f);

/** Throws validation_error naming the first field whose selector does not parse. */
export function checkFieldSelectors(fields: CrawlSpec['fields']): void {
  for (const [name, spec] of Object.entries(fields ?? {})) {
    try {
      compile(norm(spec).css);
    } catch (e) {
      throw new BrowserdError('validation_error', `field "${name}": ${JSON.stringify(norm(spec).css)} is not a CSS selector (${(e as Error).message})`, { next: 'Give a CSS selector such as "h1", ".price" or "a.next".' });
    }
  }
}


/** Throws validation_error when `schema` is not a JSON Schema ajv can compile. */
export function checkOutputSchema(schema: Record<string, unknown> | undefined): void {
  if (!schema) return;
  try {
    schemaValidator(schema);
  } catch (e) {
    throw new BrowserdError('validation_error', `outputSchema is not a usable JSON Schema: ${(e as Error).message}`, { next: 'Give a JSON Schema object, e.g. {"type":"object","properties":{"price":{"type":"string"}},"required":["price"]}.' });
  }
}

const URL_ATTRS = new Set(['href', 'src', 'action', 'poster', 'data-src']);

function valueOf(el: HElement, attr: string | undefined, resolve: (u: string) => string | undefined): string | null {
  if (!attr) return collapseWs(textContent(el)).trim();
  const v = el.attribs[attr];
  if (v === undefined) return null;
  return URL_ATTRS.has(attr.toLowerCase()) ? (resolve(v) ?? v) : v;
}

/** name -> value: text (or attribute) of the first match, a list with all, null (or []) when nothing matched. */
export function readFields(doc: HDocument, fields: NonNullable<CrawlSpec['fields']>, resolve: (u: string) => string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(fields)) {
    const f = norm(raw);
    if (f.all) out[name] = (selectAll(f.css, doc as never) as unknown as HElement[]).map((el) => valueOf(el, f.attr, resolve)).filter((v) => v !== null);
    else {
      const el = selectOne(f.css, doc as never) as unknown as HElement | null;
      out[name] = el ? valueOf(el, f.attr, resolve) : null;
    }
  }
  return out;
}

/** Violations of `schema` by `value`, as short "path: message" lines; undefined when it conforms. */
export function schemaErrors(schema: Record<string, unknown>, value: unknown): string[] | undefined {
  const v = schemaValidator(schema);
  if (v(value)) return undefined;
  return (v.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}
