/**
 * Log lines never carry a vault value or a filled code. The scrub runs on each finished JSON line, just before
 * it is written, so it covers the message, every field, bound child fields and serialised errors alike:
 * an internal_error whose message quotes a page that showed a password is logged with the password hidden.
 */
import pino, { type Logger } from 'pino';
import { holdsSecret, scrubDeep, scrubList, scrubText, SECRET_HIDDEN } from './call/redact.js';
import { lenientDecode } from './call/secret-forms.js';

interface Destination {
  write(line: string): unknown;
}

/**
 * One finished line without the secrets. A value percent-encoded in a way the listed forms do not cover (a URL
 * Chromium re-encoded) shows only decoded: each string field holding one is then logged decoded and scrubbed,
 * and a line that does not parse as JSON is replaced whole.
 */
function scrubLine(line: string, forms: readonly string[]): string {
  const out = scrubText(line, forms);
  if (!forms.length || !holdsSecret(out, forms)) return out;
  const decoded = (v: unknown): unknown => (typeof v === 'string' && holdsSecret(v, forms) ? scrubText(lenientDecode(v), forms) : v);
  try {
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return decoded(v);
      if (!v || typeof v !== 'object' || depth > 16) return v;
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1)]));
    };
    const clean = JSON.stringify(scrubDeep(walk(JSON.parse(out), 0), forms));
    if (!holdsSecret(clean, forms)) return `${clean}\n`;
  } catch {
    // not JSON: replaced whole below
  }
  return `${JSON.stringify({ level: 40, time: Date.now(), msg: `log line withheld: it held ${SECRET_HIDDEN}` })}\n`;
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
      if (prop === 'write') return (line: string) => target.write(scrubLine(line, current()));
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  (child as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = scrubbed;
  return child;
}
