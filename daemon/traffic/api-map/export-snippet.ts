/**
 * curl and Python (requests) exports, written by @readme/httpsnippet from each endpoint's example HAR request.
 * Secrets go in as sentinels carrying a per-export nonce and come out as the language's environment lookup
 * ("$API_TOKEN" in shell, os.environ['API_TOKEN'] in Python); the nonce means text recorded from a site can
 * never turn itself into an environment read. A whole map becomes one function per endpoint, so running or
 * sourcing the file sends nothing by itself (writes included); a single endpoint is a plain snippet.
 */
import { randomBytes } from 'node:crypto';
import { lazyRequire } from '../../lazy-require.js';
import type { ApiEndpoint, ApiMap } from '../../../protocol/api-map.js';
import { trafficRedactor } from '../redact.js';
import { harRequest } from './export-har.js';
import { exampleRequest, headerLines, httpOrigin } from './export-request.js';

/** Loaded with the first export (its converters are about 0.6 MB of heap). */
const httpsnippet = lazyRequire<typeof import('@readme/httpsnippet')>('@readme/httpsnippet');

export type SnippetLanguage = 'curl' | 'python';

const redactor = trafficRedactor([]);

/** A comment line can hold anything but a line break. */
const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, ' ');

/** Rewrite sentinels by the quoting they sit in: `quote` is the string's quote char, or '' outside one. */
function rewriteSentinels(code: string, pattern: RegExp, lang: SnippetLanguage): string {
  let out = '';
  let quote = '';
  let i = 0;
  while (i < code.length) {
    pattern.lastIndex = i;
    const m = pattern.exec(code);
    if (m && m.index === i) {
      const env = m[1]!;
      if (lang === 'curl') out += quote === "'" ? `'"$${env}"'` : quote === '"' ? `\${${env}}` : `"$${env}"`;
      else out += quote ? `${quote} + os.environ['${env}'] + ${quote}` : `os.environ['${env}']`;
      i += m[0].length;
      continue;
    }
    const c = code[i]!;
    if (quote) {
      // Shell single quotes have no escapes; Python strings and shell double quotes do.
      if (c === '\\' && !(lang === 'curl' && quote === "'")) {
        out += code.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && lang === 'python') {
      const end = code.indexOf('\n', i);
      out += code.slice(i, end < 0 ? code.length : end);
      i = end < 0 ? code.length : end;
      continue;
    }
    out += c;
    i++;
  }
  if (lang === 'curl') return out.replace(/'"(\$\w+)"''/g, `'"$1"`).replace(/ ''"(\$\w+)"/g, ' "$1"');
  return out.replace(/(["'])\1 \+ (os\.environ\['\w+'\])/g, '$2').replace(/(os\.environ\['\w+'\]) \+ (["'])\2(?!\2)/g, '$1');
}

/** Identifier for a shell or Python function from an endpoint id, unique within the file. */
function functionNames(endpoints: ApiEndpoint[]): Map<ApiEndpoint, string> {
  const used = new Set<string>();
  const names = new Map<ApiEndpoint, string>();
  for (const ep of endpoints) {
    let base = ep.id.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'endpoint';
    if (/^[0-9]/.test(base)) base = `e_${base}`;
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    names.set(ep, name);
  }
  return names;
}

interface Snippet {
  comments: string[];
  /** Code lines; none for a WebSocket, which curl and requests do not speak. */
  code?: string;
  imports: string[];
}

function snippetOf(map: ApiMap, ep: ApiEndpoint, lang: SnippetLanguage, nonce: string): Snippet {
  const sentinel = (env: string) => `__BRD${nonce}_${env}__`;
  const req = exampleRequest(map, ep, sentinel);
  const comments = headerLines(ep, req).map(oneLine);
  if (ep.kind === 'websocket') {
    comments.push(`WebSocket ${httpOrigin(ep.origin).replace(/^http/, 'ws')}${req.path}: not an HTTP request, use a WebSocket client.`);
    for (const m of ep.messages ?? []) if (m.example !== undefined) comments.push(oneLine(`${m.direction === 'send' ? 'sends' : 'receives'} (${m.count} seen): ${redactor.message(m.example)}`));
    return { comments, imports: [] };
  }
  // Cookies go as one Cookie header so they are quoted like every other header.
  const har = harRequest({ ...req, cookies: [], headers: req.cookies.length ? [...req.headers, { name: 'Cookie', value: req.cookies.map((c) => `${c.name}=${c.value}`).join('; ') }] : req.headers });
  const converted = new (httpsnippet().HTTPSnippet)(har as never).convert(lang === 'curl' ? 'shell' : 'python', lang === 'curl' ? 'curl' : 'requests', lang === 'curl' ? { globOff: /\{[^}]*\}/.test(req.url) } : {});
  let code = Array.isArray(converted) ? converted[0]! : '';
  // httpsnippet percent-encodes a template's braces; put them back so {id} reads as "fill me in".
  code = code.replace(/%7B([A-Za-z0-9_]+)%7D/g, '{$1}');
  code = rewriteSentinels(code, new RegExp(`__BRD${nonce}_([A-Z0-9_]+?)__`, 'y'), lang);
  const imports: string[] = [];
  if (lang === 'python') {
    const lines = code.split('\n');
    while (lines.length && (/^import |^from /.test(lines[0]!) || lines[0] === '')) {
      const l = lines.shift()!;
      if (l) imports.push(l);
    }
    code = lines.join('\n');
    if (req.env.length) imports.push('import os');
  }
  return { comments, code, imports };
}

export function exportSnippets(map: ApiMap, endpoints: ApiEndpoint[], lang: SnippetLanguage, single: boolean): string {
  const nonce = randomBytes(6).toString('hex').toUpperCase();
  const names = functionNames(endpoints);
  const snippets = endpoints.map((ep) => ({ ep, ...snippetOf(map, ep, lang, nonce) }));
  const envs = [...new Set(endpoints.flatMap((ep) => exampleRequest(map, ep, (e) => e).env.map((e) => e.env)))].sort();
  const c = '#';
  const head: string[] = [];
  if (lang === 'curl') head.push('#!/bin/sh');
  head.push(`${c} ${oneLine(map.name)} (${map.id}): ${single ? 'an example request' : 'example requests'} learned from recorded traffic.`);
  if (!single) head.push(`${c} One function per endpoint; ${lang === 'curl' ? 'source this file and call one' : 'import this file and call one'}. Nothing runs on its own.`);
  if (envs.length) head.push(`${c} Secrets come from the environment, never from this file: ${envs.join(', ')}.`);
  const imports = [...new Set(snippets.flatMap((s) => s.imports))].sort((a, b) => (a === 'import os' ? -1 : b === 'import os' ? 1 : a.localeCompare(b)));
  const parts: string[] = [head.join('\n')];
  if (imports.length) parts.push(imports.join('\n'));
  for (const s of snippets) {
    const comment = s.comments.map((l) => `${c} ${l}`).join('\n');
    if (s.code === undefined) {
      parts.push(comment);
      continue;
    }
    const code = s.code.trimEnd();
    if (single) {
      parts.push(`${comment}\n${code}`);
    } else if (lang === 'curl') {
      // Not indented: a body continues over lines inside quotes, where indentation would change it.
      parts.push(`${comment}\n${names.get(s.ep)}() {\n${code}\n}`);
    } else {
      const body = code.replace(/^print\(response\.text\)$/m, 'return response');
      parts.push(`${comment}\ndef ${names.get(s.ep)}():\n${body.split('\n').map((l) => (l ? `    ${l}` : '')).join('\n')}`);
    }
  }
  return `${parts.join('\n\n')}\n`;
}
