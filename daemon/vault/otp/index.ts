/**
 * One-time codes from the user's otp_inbox entries (IMAP mailboxes, SMS forwarding inboxes): every chosen
 * inbox is watched at once and the first fitting code wins. The code goes to the caller (which fills it)
 * and to the filled-code memory (which scrubs it from any later result); nothing else sees it.
 */
import type { Platform } from '../../platform.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { siteTerms } from './about-site.js';
import { codeFrom, type InboxMessage } from './message.js';
import { watchImap } from './imap.js';
import { watchSms } from './sms.js';

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

const ASK_A_PERSON = 'Ask a person for the code: browser_handoff with reason two_factor.';

/** The inboxes to read; not_found (pointing at a person) when there are none. */
function chooseInboxes(env: Platform, user: string, wanted?: string) {
  const all = env.vault.list(user).filter((e) => e.kind === 'otp_inbox' && e.inbox);
  if (!all.length) {
    throw new BrowserdError('not_found', 'there is no otp_inbox in your vault, so no code can be read', {
      next: `${ASK_A_PERSON} To read codes yourself later, the user adds an inbox (PUT /v1/vault/NAME with kind otp_inbox).`,
    });
  }
  if (wanted === undefined) return all;
  const one = all.filter((e) => e.name === wanted);
  if (!one.length) throw new BrowserdError('not_found', `there is no otp_inbox named ${wanted}`, { next: `Use one of: ${all.map((e) => e.name).join(', ')}; or leave inbox out to read them all.` });
  return one;
}

/**
 * Waits for the newest message about `site` that arrived after `since` and returns the code in it.
 * Throws not_found (with a next step naming a person/hand-off) when the user has no otp_inbox, timeout when no
 * such message arrived in time, action_failed naming the inbox when one could not be read.
 */
export async function waitForOtp(env: Platform, user: string, wait: OtpWait): Promise<OtpFound> {
  const inboxes = chooseInboxes(env, user, wait.inbox);
  const rule = { terms: siteTerms(wait.site, env.vault.info(user, wait.site)?.loginUrl), from: wait.from };
  const accept = (msg: InboxMessage) => codeFrom(msg, rule);
  const guard = { allowPrivateNetwork: env.cfg.allowPrivateNetwork, allowTargets: env.cfg.allowTargets, deniedPorts: env.deniedPorts() };

  const stop = new AbortController();
  const timedOut = new BrowserdError('timeout', `no message about ${wait.site} with a code arrived within ${Math.round(wait.timeoutMs / 1000)} s`, {
    next: `Make sure the site sent the code (press its "resend" if needed), then call again; or ${ASK_A_PERSON.charAt(0).toLowerCase()}${ASK_A_PERSON.slice(1)}`,
  });
  const timer = setTimeout(() => stop.abort(timedOut), wait.timeoutMs);
  const onCallerAbort = () => stop.abort(new BrowserdError('timeout', 'stopped waiting for the code: the call was cancelled', { next: 'Call again when ready.' }));
  if (wait.signal.aborted) onCallerAbort();
  else wait.signal.addEventListener('abort', onCallerAbort, { once: true });

  const failures: BrowserdError[] = [];
  try {
    const watchers = inboxes.map(async (entry): Promise<OtpFound> => {
      try {
        if (entry.inbox === 'sms') {
          const code = await watchSms({ store: env.smsInbox, user, inbox: entry.name, since: wait.since, accept, signal: stop.signal });
          return { code, inbox: entry.name, via: 'sms' };
        }
        const imap = env.vault.secrets(user, entry.name)?.imap;
        if (!imap) throw new BrowserdError('action_failed', `could not read inbox ${entry.name}: it has no mailbox settings`, { next: 'Set the inbox again (PUT /v1/vault/NAME with kind otp_inbox).' });
        const code = await watchImap({ inbox: entry.name, imap, guard, since: wait.since, accept, signal: stop.signal });
        return { code, inbox: entry.name, via: 'imap' };
      } catch (e) {
        if (!stop.signal.aborted && e instanceof BrowserdError) failures.push(e);
        throw e;
      }
    });
    let found: OtpFound;
    try {
      found = await Promise.any(watchers);
    } catch {
      // Every watcher ended without a code: the clock ran out, the caller left, or every inbox failed.
      if (failures.length === 1 && failures.length === inboxes.length) throw failures[0];
      if (failures.length) {
        const why = failures.map((f) => f.message).join('; ');
        throw new BrowserdError('action_failed', stop.signal.aborted ? `${why}; and no code arrived in the other inboxes in time` : why, { next: failures[0]!.next });
      }
      throw stop.signal.reason instanceof BrowserdError ? stop.signal.reason : timedOut;
    }
    env.filledCodes.remember(user, found.code);
    return found;
  } finally {
    clearTimeout(timer);
    wait.signal.removeEventListener('abort', onCallerAbort);
    // The other inboxes stop waiting (and log out) once a code is found.
    if (!stop.signal.aborted) stop.abort(new BrowserdError('timeout', 'a code was found in another inbox'));
  }
}
