/**
 * Hand-offs: asking a person to do one step in the live browser.
 * INTERFACE FIRST: the body lands with the hand-off work; callers code against this signature.
 */
import type { DaemonEnv } from '../env.js';
import { BrowserdError } from '../../protocol/errors.js';

export type HandoffReason = 'captcha' | 'two_factor' | 'needs_approval' | 'login' | 'other';

export interface HandoffCreated {
  id: string;
  /** Absolute link to the "Your turn" page. */
  url: string;
  expiresAt: string;
}

export async function createHandoff(
  _env: DaemonEnv,
  _user: string,
  _req: { reason: HandoffReason; message: string; tab?: string; expiresInS?: number },
): Promise<HandoffCreated> {
  throw new BrowserdError('not_configured', 'hand-offs are not built yet', { next: 'Ask the person directly.' });
}
