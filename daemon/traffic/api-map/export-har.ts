/**
 * HAR 1.2 export of an API map: one example entry per endpoint, as a HAR viewer or replay tool expects them.
 * Secrets are `$NAME` environment placeholders (export-request.ts); WebSocket and EventSource endpoints carry
 * their example messages the way Chromium's own HARs do (`_webSocketMessages`, `_eventSourceMessages`).
 */
import type { ApiEndpoint, ApiMap } from '../../../protocol/api-map.js';
import { trafficRedactor } from '../redact.js';
import { exampleRequest, type ExampleRequest } from './export-request.js';

const redactor = trafficRedactor([]);
const dollar = (env: string) => `$${env}`;

/** The HAR `request` object of an example request (also what httpsnippet reads). */
export function harRequest(req: ExampleRequest, comment?: string) {
  return {
    method: req.method,
    url: req.url,
    httpVersion: 'HTTP/1.1',
    cookies: req.cookies.map((c) => ({ name: c.name, value: c.value })),
    headers: req.headers.map((h) => ({ name: h.name, value: h.value })),
    queryString: req.query.map((q) => ({ name: q.name, value: q.value })),
    ...(req.body ? { postData: { mimeType: req.body.mimeType, text: req.body.text, params: [] } } : {}),
    headersSize: -1,
    bodySize: req.body ? Buffer.byteLength(req.body.text) : 0,
    ...(comment ? { comment } : {}),
  };
}

function harResponse(ep: ApiEndpoint) {
  const r = [...ep.responses].sort((a, b) => a.status - b.status).find((x) => x.status < 400) ?? ep.responses[0];
  const status = r?.status ?? (ep.kind === 'websocket' ? 101 : 200);
  const mimeType = r?.contentType ?? (ep.kind === 'eventsource' ? 'text/event-stream' : 'x-unknown');
  const text = r?.example !== undefined ? redactor.body(r.example, r.contentType) : undefined;
  return {
    status,
    statusText: '',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: r?.contentType ? [{ name: 'Content-Type', value: r.contentType }] : [],
    content: { size: text === undefined ? 0 : Buffer.byteLength(text), mimeType, ...(text !== undefined ? { text } : {}) },
    redirectURL: '',
    headersSize: -1,
    bodySize: -1,
  };
}

function messages(ep: ApiEndpoint, startedAt: number) {
  const list = (ep.messages ?? []).filter((m) => m.example !== undefined);
  if (ep.kind === 'websocket') {
    return { _webSocketMessages: list.map((m, i) => ({ type: m.direction, time: startedAt / 1000 + i / 1000, opcode: 1, data: redactor.message(m.example!) })) };
  }
  if (ep.kind === 'eventsource') {
    return { _eventSourceMessages: list.map((m, i) => ({ time: startedAt / 1000 + i / 1000, eventName: 'message', eventId: '', data: redactor.message(m.example!) })) };
  }
  return {};
}

export function exportHar(map: ApiMap, endpoints: ApiEndpoint[], version: string): string {
  const started = Date.parse(map.updatedAt) || 0;
  const entries = endpoints.map((ep) => {
    const req = exampleRequest(map, ep, dollar);
    const note = req.env.length ? `Set in the environment: ${req.env.map((e) => `$${e.env}`).join(', ')}` : undefined;
    return {
      startedDateTime: new Date(started).toISOString(),
      time: 0,
      request: harRequest(req, [ep.id, note].filter(Boolean).join('. ')),
      response: harResponse(ep),
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      _resourceType: ep.kind === 'http' || ep.kind === 'graphql' ? 'fetch' : ep.kind,
      ...messages(ep, started),
    };
  });
  const log = {
    version: '1.2',
    creator: { name: 'browserd', version },
    comment: `Example requests of the API map "${map.name}" (${map.id}); secrets are $NAME placeholders.`,
    entries,
  };
  return `${JSON.stringify({ log }, null, 2)}\n`;
}
