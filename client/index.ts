/**
 * The browserd client: REST types generated from api/openapi.yaml (`npm run gen`), a small typed caller for the
 * routes and tools, and verifyWebhook for receivers of browserd's signed callbacks.
 */
import type { paths } from './api-types.js';

export type { paths, components, operations } from './api-types.js';
export { verifyWebhook, WebhookVerificationError, TOLERANCE_S, type WebhookEvent, type WebhookEventType } from './verify.js';

/** A browserd error answer (`ok: false`), thrown by the client with its code and next step. */
export class BrowserdApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly next?: string) {
    super(message);
    this.name = 'BrowserdApiError';
  }
}

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : unknown;
type Ok<O> = O extends { responses: infer Rs } ? (200 extends keyof Rs ? JsonOf<Rs[200]> : 201 extends keyof Rs ? JsonOf<Rs[201]> : unknown) : unknown;
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : undefined;

export class BrowserdClient {
  private f: typeof fetch;
  constructor(private opts: ClientOptions) {
    this.f = opts.fetch ?? fetch;
  }

  /** One REST call; the answer typed from the OpenAPI document, an error answer thrown as BrowserdApiError. */
  async request<P extends keyof paths, M extends keyof paths[P] & ('get' | 'post' | 'put' | 'patch' | 'delete')>(method: M, path: P, opts: { params?: Record<string, string>; query?: Record<string, string | number>; body?: Body<paths[P][M]> } = {}): Promise<Ok<paths[P][M]>> {
    let p = String(path).replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(opts.params?.[k] ?? ''));
    const q = new URLSearchParams(Object.entries(opts.query ?? {}).map(([k, v]) => [k, String(v)]));
    if ([...q].length) p += `?${q}`;
    const res = await this.f(`${this.opts.baseUrl.replace(/\/+$/, '')}${p}`, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${this.opts.token}`, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const json = (await res.json().catch(() => ({}))) as any;
    if (!res.ok || json?.ok === false) throw new BrowserdApiError(res.status, json?.error?.code ?? 'internal_error', json?.error?.message ?? `HTTP ${res.status}`, json?.error?.next);
    return json;
  }

  /** Calls a tool (`POST /v1/tools/{name}`): the same tool and arguments an MCP client would use. */
  tool<N extends ToolName>(name: N, args: ToolArgs<N>): Promise<ToolAnswer<N>> {
    return this.request('post', `/v1/tools/${name}` as any, { body: args as any }) as Promise<ToolAnswer<N>>;
  }
}

type ToolPath = Extract<keyof paths, `/v1/tools/browser_${string}`>;
export type ToolName = ToolPath extends `/v1/tools/${infer N}` ? N : never;
export type ToolArgs<N extends ToolName> = Body<paths[`/v1/tools/${N}`]['post']>;
export type ToolAnswer<N extends ToolName> = Ok<paths[`/v1/tools/${N}`]['post']>;
