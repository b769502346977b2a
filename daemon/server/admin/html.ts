/**
 * HTML for the server-rendered pages (admin console, home page): a tagged template that escapes every value it
 * is given unless that value is itself markup made by this template, so escaping cannot be forgotten at one
 * spot. Also the page shell and the headers every such page carries.
 */
import { randomBytes } from 'node:crypto';
import { send, type Req } from '../../http/exchange.js';

/** Markup made by `html` (or `raw`): inserted as is into another `html`. */
export class Markup {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** Text as HTML text: every character that could open markup or end an attribute is an entity. */
export function escapeText(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

function render(v: Value): string {
  if (v instanceof Markup) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeText(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Markup(out);
}

/** Constant markup written in this code base (styles); never pass anything a person typed. */
export const raw = (s: string) => new Markup(s);

/**
 * Referrer-Policy same-origin rather than no-referrer: under no-referrer Chromium sends `Origin: null` with a
 * page's own form posts, and the Origin check must refuse null. same-origin sends nothing to other sites and
 * the real origin to ourselves; no URL of these pages holds a secret anyway.
 */
export const REFERRER_POLICY = 'same-origin';

/** Headers of every page: never cached (tokens are shown once), never framed, no script, forms post only to us. */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'Cache-Control': 'no-store',
    'Referrer-Policy': REFERRER_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}
header{background:#1d1d1b;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header a{color:#fff}header form{margin-left:auto}main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:22px;margin:8px 0 12px}h2{font-size:18px;margin:20px 0 8px}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}td.num{text-align:right}
.notice{background:#e6f4ea;border:1px solid #1a7f37;padding:8px 12px;border-radius:6px}
.error{background:#fdecea;border:1px solid #b3261e;padding:8px 12px;border-radius:6px;white-space:pre-wrap}
code.secret{display:block;background:#fff;border:1px dashed #888;padding:8px;font-size:16px;overflow-wrap:anywhere;user-select:all}
fieldset{background:#fff;border:1px solid #ddd;border-radius:6px;margin:0 0 12px}label{display:inline-block;min-width:12em}
textarea{width:100%;max-width:40em}.row{margin:4px 0}.muted{color:#666}.args{font-family:monospace;font-size:12px;overflow-wrap:anywhere}`;

/** A whole page; `body` must be html`` markup. */
export function sendPage(r: Req, status: number, title: string, body: Markup, headers: Record<string, string> = {}) {
  const nonce = randomBytes(16).toString('base64');
  const doc = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style nonce="${nonce}">${raw(STYLE)}</style></head><body>${body}</body></html>`;
  send(r, status, doc.text, { ...pageHeaders(nonce), ...headers });
}
