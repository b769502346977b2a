/**
 * One delivery attempt over HTTP: POST the signed body to an address vetted just before, with a 10 s bound.
 * Redirects are answers like any other (a 3xx is a failed attempt, never followed: following would send the
 * signed event wherever the Location points, unchecked). The receiver's body is read and thrown away (up to a
 * small cap) so the kept-alive connection can serve the next attempt.
 */
import http from 'node:http';
import https from 'node:https';
import { pinnedRequest } from '../net/pinned-request.js';

export interface DeliveryResult {
  status?: number;
  /** Why no status came back: refused, reset, timeout, ... */
  error?: string;
}

const DRAIN_MAX = 64 * 1024;

// Kept alive between attempts: every pooled socket was opened to an address vetted for that receiver's host.
export function deliveryAgents() {
  return {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
}
export type DeliveryAgents = ReturnType<typeof deliveryAgents>;

export function postSigned(u: URL, addresses: string[], headers: Record<string, string>, body: Buffer, opts: { timeoutMs: number; signal?: AbortSignal; agents: DeliveryAgents }): Promise<DeliveryResult> {
  return new Promise<DeliveryResult>((resolve) => {
    let done = false;
    const finish = (r: DeliveryResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const onAbort = () => {
      req.destroy();
      finish({ error: 'cancelled (the daemon is stopping)' });
    };
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: `no answer in ${Math.round(opts.timeoutMs / 1000)} s` });
    }, opts.timeoutMs);
    // It can only connect to the addresses the guard checked.
    const req = pinnedRequest(u, addresses, { method: 'POST', agent: opts.agents[u.protocol as 'http:' | 'https:'], headers: { ...headers, 'content-length': String(body.length) } });
    req.on('error', (e) => finish({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        // A receiver streaming a huge answer does not hold the attempt: its status is all that counts.
        if (size > DRAIN_MAX) {
          res.destroy();
          finish({ status: res.statusCode });
        }
      });
      res.on('end', () => finish({ status: res.statusCode }));
      res.on('error', () => finish({ status: res.statusCode }));
    });
    req.end(body);
  });
}
