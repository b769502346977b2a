/**
 * browser_api_call: one endpoint of a user's API map called, its pagination followed to a bound. Everything
 * that can refuse (unknown map or endpoint, a missing path value, a credential header, a write without
 * access "act", a read tab, a read-only or blocked site, an unknown saved session) is decided BEFORE anything
 * is sent, dependencies included: a refusal sends nothing. Answers are redacted by the traffic redactor, and
 * the cookies and CSRF values the call used are scrubbed from everything it returns.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { ApiEndpoint, ApiMap } from '../../protocol/api-map.js';
import type { ToolContext } from '../call/context.js';
import type { ResponseBuilder } from '../call/response.js';
import { inline } from '../call/trusted-text.js';
import type { Tab } from '../browser/tab.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { fetchGuardFor } from '../fetch/guarded-fetch.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { scrubList } from '../call/redact.js';
import { trafficRedactor } from './redact.js';
import { buildRequest, checkCallerHeaders, endpointText, ID_NOTE, isWrite, resolveEndpoint, type ApiRequest, type ParamValue, type ResolvedEndpoint } from './api-call-request.js';
import { itemsOf, nextPage, pageSizeOf, type PageSeen } from './api-call-paging.js';
import { atPointer, withPointer } from './api-map/json-pointer.js';
import { cookieHeaderFor, pageSender, serverSender, type ApiResponse, type JarCookie, type Sender } from './api-call-send.js';
import { apiMapStore } from '../../storage/api-maps.js';

export interface ApiCallArgs {
  map: string;
  endpoint: string;
  params?: Record<string, ParamValue>;
  body?: unknown;
  mode?: 'page' | 'server';
  tab?: string;
  session?: string;
  access?: 'read' | 'act';
  maxPages?: number;
  maxItems?: number;
  headers?: Record<string, string>;
}

/** Characters of each response body shown (fenced); the items travel whole in the structured result. */
const SHOWN_BODY_CHARS = 12_000;

export async function runApiCall(ctx: ToolContext, args: ApiCallArgs, out: ResponseBuilder): Promise<void> {
  const user = ctx.user.id;
  const map = apiMapStore(ctx.env.db).get(user, args.map);
  if (!map) throw new BrowserdError('not_found', `no API map ${args.map}`, { next: 'List your maps with browser_api_map{action:"list"}, or build one from a HAR (browser_api_map{action:"build"}).' });
  const mode = args.mode ?? 'page';
  const access = args.access ?? 'read';
  const params = args.params ?? {};
  const headers = checkCallerHeaders(args.headers);
  const target = resolveEndpoint(map, args.endpoint);
  const deps = dependencySources(map, target.endpoint);
  // Built once now so a missing value is refused before any dependency is fetched; dependency targets stand in.
  const draft = buildRequest(target, { ...placeholdersFor(target.endpoint), ...params }, args.body, headers);
  const write = isWrite(target.endpoint);

  // ---- every refusal, before anything is sent
  const rules = ctx.env.policies.rules(user);
  const tab = mode === 'page' ? await ctx.tab(args.tab) : undefined;
  for (const req of [draft, ...deps.map((d) => d.request)]) refuseByPolicy(rules, req, req === draft && write);
  if (write && access !== 'act') {
    throw new BrowserdError('refused', `the endpoint writes (${writeWhy(target.endpoint)}) and access is "read" ${ID_NOTE}`, { next: 'Pass access: "act" if the user wants this change made.', pageText: endpointText(target.endpoint) });
  }
  if (tab) {
    if (!/^https?:/.test(tab.url)) throw new BrowserdError('validation_error', `tab: ${tab.id} is on ${inline(tab.url)}, not a web page, so it has no origin to call from`, { next: `Navigate ${tab.id} to ${map.hosts[0] ?? 'the site'} first, or use mode "server".` });
    if (write && tab.mode === 'read') throw new BrowserdError('refused', `the endpoint writes and ${tab.id} is a read tab ${ID_NOTE}`, { next: 'Use an act tab (browser_open{mode:"act"}), or mode "server" with access "act".', pageText: endpointText(target.endpoint) });
    if (write && evaluateHostPolicy(rules, tab.url) === 'read_only') throw readOnly(tab.url);
  }
  const session = args.session !== undefined ? ctx.env.savedSessions.open(user, args.session) : undefined;
  if (args.session !== undefined && !session) throw new BrowserdError('not_found', `no saved session ${args.session}`, { next: 'List saved sessions with browser_session_list.' });
  // A write to a site is what approvals are for: with them on, it is asked about, not sent (as a sensitive click is).
  if (write && ctx.user.approvals) {
    // The id is a path the site used: it stands only in target, which is page text (fenced over MCP).
    out.needsApproval({ action: 'api_call', classes: ['api write'], reasons: [`a write: ${writeWhy(target.endpoint)}`], ...(tab ? { tab: tab.id } : {}), target: target.endpoint.id });
    return;
  }

  // ---- the senders; what they use that is secret is scrubbed from the answer
  const secrets: string[] = [];
  const jar = cookieJar(ctx, tab, args.tab, session?.cookies, secrets);
  const send: Sender = tab ? notingPageCookies(pageSender(tab), jar) : serverSender(fetchGuardFor(ctx.env, user), jar, ctx.signal);

  // ---- dependencies (CSRF tokens and the like), then the call and its pages
  const values = { ...params };
  let body = args.body;
  const extraHeaders: Record<string, string> = {};
  for (const d of deps) {
    ctx.checkCancelled();
    const value = await dependencyValue(d, send, jar);
    secrets.push(value);
    const t = d.dep.target;
    if (t.in === 'header') extraHeaders[t.name] = value;
    else if (t.in === 'body') body = withPointer(body, t.name, value);
    else values[t.name] = value;
  }
  const first = buildRequest(target, values, body, { ...headers, ...extraHeaders });

  const maxPages = args.maxPages ?? 10;
  const maxItems = args.maxItems ?? 1000;
  const pagination = write ? undefined : target.endpoint.pagination;
  const pages: { res: ApiResponse; request: ApiRequest }[] = [];
  const items: unknown[] = [];
  let stopped: string;
  let pageSize = pagination ? pageSizeOf(pagination, first.url) : undefined;
  let request = first;
  for (;;) {
    ctx.checkCancelled();
    const res = await send(request);
    pages.push({ res, request });
    const json = parseJson(res.body);
    const pageItems = itemsOf(json);
    if (pageItems) items.push(...pageItems.slice(0, maxItems - items.length));
    if (!pagination) { stopped = 'the endpoint does not page'; break; }
    if (res.status < 200 || res.status >= 300) { stopped = `the site answered ${res.status}`; break; }
    if (items.length >= maxItems) { stopped = `maxItems (${maxItems}) reached`; break; }
    if (pages.length >= maxPages) { stopped = `maxPages (${maxPages}) reached`; break; }
    pageSize ??= pageItems?.length;
    const page: PageSeen = { url: request.url, json, headers: res.headers, items: pageItems };
    const next = nextPage(pagination, page, pageSize, target.endpoint.origin);
    if ('end' in next) { stopped = next.end; break; }
    request = { ...request, url: next.url };
  }

  // Made after the last send: the cookies of every page sent are among the secrets by now.
  for (const s of secrets) out.addSecret(s);
  const redact = trafficRedactor([...userSecretForms(ctx.env, user), ...scrubList(secrets)]);
  const last = pages.at(-1)!.res;
  const shownItems = parseJson(redact.body(JSON.stringify(items), 'application/json'));
  out
    .set('map', map.id)
    .set('endpoint', target.endpoint.id)
    .set('mode', mode)
    .set('write', write)
    .set('status', last.status)
    .set('pages', pages.length)
    .set('itemCount', items.length)
    .set('items', shownItems)
    .set('stoppedBecause', stopped)
    .set('requests', pages.map((p) => ({ method: p.request.method, url: redact.url(p.request.url), status: p.res.status, cut: p.res.cut })));
  if (tab) out.set('tab', tab.id);
  // The endpoint id holds a path the site used (its words): fenced once, not repeated on our line.
  out.text(`The endpoint (${mode} mode${tab ? ` in ${tab.id}` : ''}; its id is fenced below): status ${last.status}, ${pages.length} page${pages.length === 1 ? '' : 's'}, ${items.length} item${items.length === 1 ? '' : 's'}; paging stopped: ${stopped}.`);
  out.page('endpoint called', target.endpoint.id);
  pages.forEach((p, i) => {
    const contentType = p.res.headers['content-type'];
    let text = redact.body(p.res.body, contentType);
    const cut = text.length > SHOWN_BODY_CHARS;
    if (cut) text = text.slice(0, SHOWN_BODY_CHARS);
    out.page(`${p.request.method} ${inline(redact.url(p.request.url))} (page ${i + 1}, status ${p.res.status}${cut || p.res.cut ? ', cut' : ''})`, text);
  });
}

/** Host policy on the address called: blocked refuses anything, read-only refuses writes. */
function refuseByPolicy(rules: ReturnType<ToolContext['env']['policies']['rules']>, req: ApiRequest, write: boolean) {
  const access = evaluateHostPolicy(rules, req.url);
  if (access === 'blocked') throw new BrowserdError('blocked', `the user's policy blocks ${new URL(req.url).hostname}`, { next: 'Report this to the user; do not try another way.' });
  if (write && access === 'read_only') throw readOnly(req.url);
}

function readOnly(url: string): BrowserdError {
  return new BrowserdError('site_read_only', `${new URL(url).hostname} is read-only by the user's policy: this write is refused`, { next: 'Report this to the user. Do not try another way (another tab, mode, or endpoint).' });
}

function writeWhy(e: ApiEndpoint): string {
  return e.operation?.type === 'mutation' ? `GraphQL mutation ${e.operation.name}` : e.method.toUpperCase();
}

interface DependencySource {
  dep: ApiEndpoint['dependencies'][number];
  source: ApiEndpoint;
  request: ApiRequest;
}

/** Each dependency's source request, built now: it must be a read the map knows, with no value missing. */
function dependencySources(map: ApiMap, e: ApiEndpoint): DependencySource[] {
  return e.dependencies.map((dep) => {
    const source = map.endpoints.find((x) => x.id === dep.source.endpoint);
    if (!source || isWrite(source)) {
      throw new BrowserdError('validation_error', `the endpoint takes a value from another endpoint, which ${source ? 'writes' : 'is not in the map'} (the ids and the value's name are the page text of this error)`, {
        next: 'Rebuild the map from a HAR in which the value comes from a read.',
        pageText: `${endpointText(e)}\nvalue: ${dep.target.name}\nfrom: ${dep.source.endpoint}`,
      });
    }
    const resolved: ResolvedEndpoint = { endpoint: source, pathValues: {}, queryValues: {} };
    return { dep, source, request: buildRequest(resolved, {}, undefined, {}) };
  });
}

/** Stand-ins for values a dependency fills, so the draft request can be checked before they are fetched. */
function placeholdersFor(e: ApiEndpoint): Record<string, string> {
  return Object.fromEntries(e.dependencies.filter((d) => d.target.in === 'path' || d.target.in === 'query').map((d) => [d.target.name, 'dependency']));
}

async function dependencyValue(d: DependencySource, send: Sender, jar: (url: URL) => Promise<string | undefined>): Promise<string> {
  const res = await send(d.request);
  const where = `${d.source.id} (${d.dep.source.in} ${d.dep.source.path})`;
  let v: unknown;
  if (d.dep.source.in === 'body') v = atPointer(parseJson(res.body), d.dep.source.path);
  else if (d.dep.source.in === 'header') v = res.headers[d.dep.source.path.toLowerCase()];
  else {
    const header = await jar(new URL(d.request.url));
    v = header?.split('; ').find((p) => p.startsWith(`${d.dep.source.path}=`))?.slice(d.dep.source.path.length + 1);
  }
  if ((typeof v !== 'string' && typeof v !== 'number') || v === '') {
    throw new BrowserdError('action_failed', `the value for ${d.dep.target.name} was not found in ${where} (status ${res.status})`, { next: 'The site may need a signed-in session; sign in in the browser (or pass a saved session) and call again.' });
  }
  return String(v);
}

/**
 * The cookies the call may use for a URL: a saved session's, else the live profile's (the tab's context:
 * Network.getCookies answers exactly what Chromium would send; with no tab, the default context's jar).
 * Values found are noted as secrets so no answer shows them.
 */
function cookieJar(ctx: ToolContext, pageTab: Tab | undefined, tabArg: string | undefined, saved: JarCookie[] | undefined, secrets: string[]): (url: URL) => Promise<string | undefined> {
  return async (url) => {
    let header: string | undefined;
    if (saved) header = cookieHeaderFor(saved, url);
    else if (pageTab || tabArg !== undefined || ctx.defaultTabId()) {
      const tab = pageTab ?? (await ctx.tab(tabArg));
      const { cookies } = await tab.send('Network.getCookies', { urls: [url.href] });
      header = cookies.length ? cookies.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
    } else {
      const conn = (await ctx.browser()).conn;
      const all = conn ? (await conn.send('Storage.getCookies', {})).cookies : [];
      header = cookieHeaderFor(all.map((c) => ({ ...c, expires: c.session ? undefined : c.expires })), url);
    }
    for (const pair of header?.split('; ') ?? []) {
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value) secrets.push(value);
    }
    return header;
  };
}

/**
 * In page mode the page sends its own cookies, unseen by us: they are looked up around each request (before:
 * what went out; after: what the answer set) so a site that echoes one cannot put it into the answer.
 */
function notingPageCookies(send: Sender, jar: (url: URL) => Promise<string | undefined>): Sender {
  return async (req) => {
    const url = new URL(req.url);
    await jar(url);
    const res = await send(req);
    await jar(url);
    return res;
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
