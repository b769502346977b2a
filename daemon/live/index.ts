/**
 * Live links: a short-lived, unguessable link to a viewer of one user's browser with one tab in front.
 * INTERFACE FIRST: the body lands with the live-view work; callers code against this signature.
 */
import type { DaemonEnv } from '../env.js';
import { BrowserdError } from '../../protocol/errors.js';

export interface LiveLink {
  /** Absolute URL of the viewer page. */
  url: string;
  expiresAt: string;
  mode: 'interactive' | 'view';
}

/**
 * A live link for `tabId` of `user`. `mode` defaults to what the user's account allows (take-over on:
 * interactive); asking for interactive without take-over gives view. `ttlMs` is the life of an unopened link.
 */
export function createLiveLink(_env: DaemonEnv, _user: string, _tabId: string, _opts: { mode?: 'interactive' | 'view'; ttlMs?: number } = {}): LiveLink {
  throw new BrowserdError('not_configured', 'live view is not built yet', { next: 'Use browser_screenshot to see the page.' });
}
