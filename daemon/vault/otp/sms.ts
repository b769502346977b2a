/**
 * Waits in one SMS inbox (messages a forwarder posted to POST /v1/inbox/sms/{inbox}). No polling: the store
 * announces each new message and the waiter looks again at once.
 */
import type { SmsInboxStore } from '../../../storage/sms-inbox.js';
import type { InboxMessage } from './message.js';
import { CLOCK_SKEW_MS } from './imap.js';

export interface SmsWatch {
  store: SmsInboxStore;
  user: string;
  inbox: string;
  since: Date;
  accept(msg: InboxMessage): string | undefined;
  signal: AbortSignal;
}

export function watchSms(w: SmsWatch): Promise<string> {
  const floor = w.since.getTime() - CLOCK_SKEW_MS;
  return new Promise<string>((resolve, reject) => {
    let stop = () => {};
    const finish = (fn: () => void) => {
      stop();
      w.signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => finish(() => reject(w.signal.reason));
    const look = () => {
      try {
        // Newest first. A phone that says the text is older than the call was offline and forwards it late:
        // that code is most likely stale, so it does not count either.
        for (const m of w.store.list(w.user, w.inbox)) {
          if (m.at < floor) break;
          if (m.receivedAt && Date.parse(m.receivedAt) < floor) continue;
          const code = w.accept({ from: m.from ?? '', subject: '', text: m.text });
          if (code) return finish(() => resolve(code));
        }
      } catch (e) {
        finish(() => reject(e));
      }
    };
    if (w.signal.aborted) return reject(w.signal.reason);
    stop = w.store.onMessage(w.user, w.inbox, look);
    w.signal.addEventListener('abort', onAbort, { once: true });
    look();
  });
}
