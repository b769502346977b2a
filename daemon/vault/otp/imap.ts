/**
 * Waits in one IMAP mailbox for a message that carries a code: imapflow for the protocol, mailparser for
 * MIME (quoted-printable, base64, charsets, multipart). The mailbox is opened read-only (EXAMINE), so
 * reading a code leaves it unread for the person. New mail is noticed through IDLE when the server offers
 * it (imapflow idles right after each command and reports EXISTS) and by a short poll otherwise.
 *
 * Nothing about a message (sender, subject, text, code) and never the password is logged or put in an error.
 */
import { isIP } from 'node:net';
import { classifyAddress } from '../../net/address.js';
import type { ImapInbox } from '../../../storage/vault.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { mailboxAddress, type MailboxGuard } from './mailbox-address.js';
import type { InboxMessage } from './message.js';

/** Mail servers stamp arrival with their own clock, to the second: a message may look this much older than it is. */
export const CLOCK_SKEW_MS = 5_000;
/** Without IDLE, how often the mailbox is searched again. */
const POLL_MS = 2_000;
/** With IDLE the server tells us about new mail; a search now and then only guards against a lost notice. */
const IDLE_POLL_MS = 15_000;
/** One-time-code mails are small; a huge message is not read at all. */
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

export interface ImapWatch {
  /** The otp_inbox entry's name, for errors. */
  inbox: string;
  imap: ImapInbox;
  guard: MailboxGuard;
  since: Date;
  /** The code in a message, or undefined when it is not the wanted one. */
  accept(msg: InboxMessage): string | undefined;
  signal: AbortSignal;
}

/** Why a mailbox could not be read, in words that never carry the password or server-supplied text. */
function describe(e: any): string {
  if (e?.authenticationFailed) return 'login failed (wrong user name or password)';
  if (e?.tlsFailed) return 'the server offers no TLS (STARTTLS), and the password is not sent in the clear over the internet';
  const code = e?.code ?? e?.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the server refused the connection';
    case 'ETIMEDOUT':
    case 'CONNECT_TIMEOUT':
    case 'GREETING_TIMEOUT':
      return 'the server did not answer in time';
    case 'ECONNRESET':
    case 'NoConnection':
    case 'EConnectionClosed':
      return 'the server closed the connection';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the server is unreachable';
  }
  if (typeof code === 'string' && /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_|SELF_SIGNED|UNABLE_TO)/.test(code)) return `TLS failed (${code})`;
  if (e?.serverResponseCode === 'NONEXISTENT' || /mailbox/i.test(String(e?.responseText ?? ''))) return 'the INBOX folder could not be opened';
  return 'the IMAP session failed';
}

/**
 * Without implicit TLS, a mailbox across the internet must still upgrade (STARTTLS) before the password is
 * sent: a stripped capability list would otherwise send it in the clear. On loopback and the private networks
 * an admin allowed, plain IMAP is accepted (and upgraded when offered).
 */
export function mustUpgrade(tls: boolean, address: string): boolean {
  return !tls && classifyAddress(address) === 'public';
}

const failed = (inbox: string, why: string) =>
  new BrowserdError('action_failed', `could not read inbox ${inbox}: ${why}`, {
    next: 'Fix the inbox settings in the vault (PUT /v1/vault/NAME with kind otp_inbox), or ask a person for the code (browser_handoff with reason two_factor).',
  });

/** Resolves with the code of the newest fitting message that arrived at or after `since`; rejects on failure or abort. */
export async function watchImap(w: ImapWatch): Promise<string> {
  const { imap, inbox, signal } = w;
  const address = await mailboxAddress(inbox, imap.host, imap.port, w.guard);
  if (signal.aborted) throw signal.reason;
  // The IMAP client and the mail parser (about 8 MB of heap together) load with the first inbox watched.
  const [{ ImapFlow }, { simpleParser }] = await Promise.all([import('imapflow'), import('mailparser')]);
  const client = new ImapFlow({
    host: address,
    port: imap.port,
    secure: imap.tls,
    // Connect to the checked address but verify the certificate against the name the user gave.
    ...(isIP(imap.host.replace(/^\[|\]$/g, '')) ? {} : { servername: imap.host }),
    ...(mustUpgrade(imap.tls, address) ? { doSTARTTLS: true } : {}),
    auth: { user: imap.user, pass: imap.password },
    logger: false,
    clientInfo: { name: 'browserd' },
    connectionTimeout: 15_000,
    // Idle right after each search, so the server's EXISTS notice wakes us (imapflow's default waits 15 s).
    autoIdleDelay: 300,
    greetingTimeout: 10_000,
  });
  // imapflow emits 'error' on socket trouble; without a listener that would end the process.
  let broken: unknown;
  let wake: (() => void) | undefined;
  // Set by a notice that arrives while a search runs, so the notice is not lost before the next wait.
  let fresh = false;
  client.on('error', (e) => {
    broken = e;
    wake?.();
  });
  client.on('exists', () => {
    fresh = true;
    wake?.();
  });
  client.on('close', () => wake?.());
  const onAbort = () => {
    wake?.();
    client.close();
  };
  signal.addEventListener('abort', onAbort, { once: true });

  try {
    await client.connect();
    await client.mailboxOpen('INBOX', { readOnly: true });
    const floor = w.since.getTime() - CLOCK_SKEW_MS;
    const seen = new Set<number>();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (broken || !client.usable) throw broken ?? new Error('connection closed');
      fresh = false;
      // SINCE has day granularity in the server's time zone: ask from the day before and filter exactly below.
      const uids = (await client.search({ since: new Date(floor - 24 * 3600_000) }, { uid: true })) || [];
      const unseen = uids.filter((u) => !seen.has(u));
      if (unseen.length) {
        const candidates: { uid: number; at: number }[] = [];
        for await (const m of client.fetch(unseen, { uid: true, internalDate: true, size: true }, { uid: true })) {
          seen.add(m.uid);
          const at = m.internalDate ? new Date(m.internalDate).getTime() : NaN;
          if (at >= floor && (m.size ?? 0) <= MAX_MESSAGE_BYTES) candidates.push({ uid: m.uid, at });
        }
        // Newest first: when a site sent two codes, only the last one is still valid.
        candidates.sort((a, b) => b.at - a.at || b.uid - a.uid);
        for (const c of candidates) {
          const m = await client.fetchOne(String(c.uid), { source: true }, { uid: true });
          if (!m || !m.source) continue;
          const parsed = await simpleParser(m.source, { skipImageLinks: true, skipTextToHtml: true });
          const code = w.accept({
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : undefined,
          });
          if (code) return code;
        }
      }
      if (fresh) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, client.capabilities.has('IDLE') ? IDLE_POLL_MS : POLL_MS);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    throw failed(inbox, describe(e));
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (client.usable) await client.logout().catch(() => client.close());
    else client.close();
  }
}
