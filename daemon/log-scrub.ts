/**
 * Log lines never carry a vault value or a filled code. The scrub runs on each finished JSON line, just before
 * it is written, so it covers the message, every field, bound child fields and serialised errors alike:
 * an internal_error whose message quotes a page that showed a password is logged with the password hidden.
 */
import pino, { type Logger } from 'pino';
import { scrubList, scrubText } from './tools/redact.js';

interface Destination {
  write(line: string): unknown;
}

/**
 * A child of `log` whose every line is scrubbed of `secrets()` (read per line, so a value saved a moment ago
 * is already hidden). `log` itself is left as it was: a test logger shared by daemons restarted in turn gets
 * one scrubbing child per daemon, each reading its own store.
 */
export function scrubbingLogger(log: Logger, secrets: () => readonly string[]): Logger {
  const child = log.child({});
  const key = pino.symbols.streamSym as unknown as keyof Logger;
  const inner = child[key] as unknown as Destination | undefined;
  if (!inner || typeof inner.write !== 'function') throw new Error('the logger has no destination stream to scrub');
  // When the store cannot be read (closing, closed) the last list read still applies.
  let values: readonly string[] = [];
  let forms: string[] = [];
  const current = () => {
    try {
      const now = secrets();
      if (now.length !== values.length || now.some((v, i) => v !== values[i])) {
        values = now;
        forms = scrubList(now);
      }
    } catch {
      // keep the previous list
    }
    return forms;
  };
  const scrubbed = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'write') return (line: string) => target.write(scrubText(line, current()));
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  (child as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = scrubbed;
  return child;
}
