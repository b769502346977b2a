/**
 * Live links: a short-lived, unguessable link to a viewer of one user's browser with one tab in front.
 * The registry (links.ts) holds them; the viewer page (page.ts) and its WebSocket (socket.ts) open them.
 */
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { LiveMode } from '../live/links.js';

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
export function createLiveLink(env: Platform, user: string, tabId: string, opts: { mode?: 'interactive' | 'view'; ttlMs?: number } = {}): LiveLink {
  const account = env.users.get(user);
  if (!account) throw new BrowserdError('not_found', `no user ${user}`, { next: 'Check the user name.' });
  // Bound to the user: a tab id of another user's (ids repeat across users) is simply not found here.
  if (!env.tabs.get(user, tabId)) throw new BrowserdError('not_found', `no tab ${tabId}`, { next: 'List your tabs with browser_tabs, or open one with browser_open.' });
  if (opts.ttlMs !== undefined && (!Number.isFinite(opts.ttlMs) || opts.ttlMs < 0)) {
    throw new BrowserdError('validation_error', 'ttlMs must be a number of milliseconds >= 0', { next: 'Leave it out for the default life of a link.' });
  }
  const mode: LiveMode = account.takeover && opts.mode !== 'view' ? 'interactive' : 'view';
  const { url, rec } = env.live.create(user, tabId, mode, opts.ttlMs);
  return { url, expiresAt: new Date(rec.expiresAt).toISOString(), mode };
}
