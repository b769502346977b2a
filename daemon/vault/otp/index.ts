/**
 * One-time codes from the user's otp_inbox entries (IMAP mailboxes, SMS forwarding inboxes).
 * INTERFACE FIRST: the body lands with the OTP inbox work; callers code against this signature.
 */
import type { DaemonEnv } from '../../env.js';
import { BrowserdError } from '../../../protocol/errors.js';

export interface OtpWait {
  /** The vault entry (site) the code is for: messages about this site are considered. */
  site: string;
  /** Sender filter (substring of the From address, case-insensitive). */
  from?: string;
  /** Which otp_inbox entry to read; default all of the user's inboxes. */
  inbox?: string;
  /** Only messages that arrived at or after this moment count. */
  since: Date;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface OtpFound {
  code: string;
  /** The otp_inbox entry it came from. */
  inbox: string;
  via: 'imap' | 'sms';
}

/**
 * Waits for the newest message about `site` that arrived after `since` and returns the code in it.
 * Throws not_found (with a next step naming a person/hand-off) when the user has no otp_inbox, timeout when no
 * such message arrived in time.
 */
export async function waitForOtp(_env: DaemonEnv, _user: string, _wait: OtpWait): Promise<OtpFound> {
  throw new BrowserdError('not_configured', 'reading one-time codes from inboxes is not built yet', { next: 'Ask a person for the code.' });
}
