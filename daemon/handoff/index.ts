/**
 * Hand-offs: asking a person to do one step in the live browser. Callers (browser_handoff, browser_login)
 * create them here; the service (service.ts, reached by the HANDOFFS key) keeps their states and wakes waiters.
 */
import type { HandoffReason } from '../../storage/handoffs.js';

export type { HandoffReason };
import type { HandoffService } from './service.js';
export { HandoffService, type HandoffView } from './service.js';

export interface HandoffCreated {
  id: string;
  /** Absolute link to the "Your turn" page. */
  url: string;
  expiresAt: string;
  /** True when the server's whole-life cap cut the expiry asked for. */
  capped?: boolean;
}

export async function createHandoff(
  handoffs: Pick<HandoffService, 'create'>,
  user: string,
  req: { reason: HandoffReason; message: string; tab?: string; expiresInS?: number },
): Promise<HandoffCreated> {
  const { record, url, capped } = await handoffs.create(user, req);
  return { id: record.id, url, expiresAt: record.expiresAt, capped };
}
