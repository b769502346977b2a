/** A FIFO lock per key: one tool call at a time acts on a tab, so two agents do not interleave keystrokes. */
import { BrowserdError } from '../../protocol/errors.js';

export class KeyedLock {
  private tails = new Map<string, Promise<void>>();

  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    const abort = new Promise<never>((_, reject) => {
      signal?.addEventListener('abort', () => reject(new BrowserdError('timeout', 'the call was cancelled while waiting for the tab', { next: 'Retry.' })), { once: true });
    });
    try {
      await (signal ? Promise.race([prev, abort]) : prev);
    } catch (e) {
      release();
      throw e;
    }
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
