/**
 * Dependencies: a value a request sends (a header, a query parameter, a JSON or form body field) that an
 * EARLIER response handed out (a body field, a header, a Set-Cookie): the CSRF token of GET /api/csrf sent back
 * as X-CSRF-Token, a login's token sent as Authorization. Raw values are compared here, before any redaction;
 * only names and pointers leave this module. Short or word-like values are not compared: "true" or "en-US"
 * appear everywhere and would tie everything to everything.
 */
import type { ApiDependency } from '../../../protocol/api-map.js';
import type { ApiEntry } from './har-input.js';
import { parseJson } from './har-input.js';
import { scalars } from './json-pointer.js';
import { headerRole } from './request-parts.js';

type Source = ApiDependency['source'];
type Target = ApiDependency['target'];

function worthComparing(v: string): boolean {
  return v.length >= 8 && v.length <= 8192 && !/\s/.test(v) && (/\d/.test(v) || v.length >= 16);
}

function requestValues(e: ApiEntry): { target: Target; value: string }[] {
  const out: { target: Target; value: string }[] = [];
  for (const [name, value] of e.headers) {
    if (headerRole(name) === 'skip' && name.toLowerCase() !== 'authorization') continue;
    // Authorization: the credential after its scheme is what a response handed out.
    const v = name.toLowerCase() === 'authorization' ? value.replace(/^\S+\s+/, '') : value;
    out.push({ target: { in: 'header', name }, value: v });
  }
  for (const [name, value] of e.query) out.push({ target: { in: 'query', name }, value });
  const body = e.requestBody?.text;
  const json = parseJson(body);
  if (json !== undefined) for (const s of scalars(json)) out.push({ target: { in: 'body', name: s.pointer }, value: s.value });
  else if (body && /x-www-form-urlencoded/i.test(e.requestBody!.mimeType)) for (const [name, value] of new URLSearchParams(body)) out.push({ target: { in: 'body', name }, value });
  return out.filter((x) => worthComparing(x.value));
}

function responseValues(e: ApiEntry, endpoint: string): { source: Source; value: string }[] {
  const out: { source: Source; value: string }[] = [];
  const json = parseJson(e.responseBody?.text);
  if (json !== undefined) for (const s of scalars(json)) out.push({ source: { endpoint, in: 'body', path: s.pointer }, value: s.value });
  for (const [name, value] of e.responseHeaders) if (!/^set-cookie2?$/i.test(name)) out.push({ source: { endpoint, in: 'header', path: name }, value });
  for (const [name, value] of e.setCookies) out.push({ source: { endpoint, in: 'cookie', path: name }, value });
  return out.filter((x) => worthComparing(x.value));
}

/** Dependencies per endpoint id. `endpointOf` names each entry's endpoint; an endpoint never depends on itself. */
export function dependenciesOf(entries: readonly ApiEntry[], endpointOf: Map<ApiEntry, string>): Map<string, ApiDependency[]> {
  const seen = new Map<string, Source>();
  const out = new Map<string, Map<string, ApiDependency>>();
  for (const e of entries) {
    const endpoint = endpointOf.get(e);
    if (!endpoint) continue;
    for (const { target, value } of requestValues(e)) {
      const source = seen.get(value);
      if (!source || source.endpoint === endpoint) continue;
      const deps = out.get(endpoint) ?? new Map<string, ApiDependency>();
      deps.set(`${target.in} ${target.name}`, { target, source });
      out.set(endpoint, deps);
    }
    // Added after the request was read: a response only feeds LATER requests.
    for (const { source, value } of responseValues(e, endpoint)) seen.set(value, source);
  }
  return new Map([...out].map(([k, v]) => [k, [...v.values()]]));
}
