/** Arguments as they may be stored in the audit log: typed text into password-like fields, secrets and tokens out. */

const SECRET_KEYS = /pass(word)?|secret|token|otp|totp|code|cvv|cvc|card|iban|pin|api[_-]?key|authorization|cookie/i;

/** Tools whose free text may carry what a user typed: kept by length only. */
const TEXT_TOOLS: Record<string, string[]> = {
  browser_type: ['text'],
  browser_fill: ['value'],
  browser_evaluate: [],
};

export function redactArgs(tool: string, args: unknown): unknown {
  if (!args || typeof args !== 'object') return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (SECRET_KEYS.test(k)) out[k] = '[redacted]';
    // File contents are neither useful in an audit log nor small: keep their size only.
    else if (k === 'base64' && typeof v === 'string') out[k] = `[${Buffer.byteLength(v, 'base64')} bytes]`;
    else if (TEXT_TOOLS[tool]?.includes(k) && typeof v === 'string') out[k] = `[${v.length} chars]`;
    else if (k === 'fields' && tool === 'browser_fill_form' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([ref, val]) => [ref, typeof val === 'string' ? `[${val.length} chars]` : '[redacted]']));
    } else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = redactArgs('', v);
    else out[k] = v;
  }
  return out;
}
