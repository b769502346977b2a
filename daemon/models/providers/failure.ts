/**
 * What a provider call's failure becomes, the same for all three families: an HTTP error from the provider is
 * action_failed naming the provider and status, a provider too slow is timeout, our own cancel is timeout
 * "the call was cancelled"; what the provider said is the error's page text. The key is never in what comes out: providers echo keys back in their error text
 * ("Incorrect API key provided: sk-…"), so every provider message is scrubbed of it before it is used.
 */
import { BrowserdError } from '../../../protocol/errors.js';
import { providerNames } from '../catalog.js';
import type { Provider } from '../types.js';

/** What the adapter could read from the SDK's error: the HTTP status, if there was an answer, and its message. */
export interface ProviderErrorInfo {
  status?: number;
  message?: string;
  /** The SDK gave up waiting (its own timeout), not our signal. */
  timedOut?: boolean;
}

const MAX_MESSAGE = 200;

/**
 * The message with the key (and any run of characters holding a long piece of it, as providers print masked
 * keys like "sk-proj-abcd****wxyz") replaced, cut short: a caller reads it, a model may too.
 */
export function scrubKey(text: string, key: string): string {
  let out = text;
  if (key) out = out.split(key).join('[key]');
  if (key.length >= 12) {
    for (const piece of [key.slice(0, 8), key.slice(-6)]) {
      out = out.replace(new RegExp(`\\S*${piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\S*`, 'g'), '[key]');
    }
  }
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE - 1)}…` : out;
}

function nextFor(provider: Provider, status: number): string {
  const name = providerNames[provider];
  if (status === 401 || status === 403) return `Check the ${name} key: send a valid one in the X-Model-Key header, or ask the admin about BROWSERD_${provider.toUpperCase()}_API_KEY.`;
  if (status === 429) return `${name} is limiting this key's rate or quota: wait a minute and retry, or choose a model of another provider (GET /v1/models).`;
  if (status >= 500) return `${name} failed on its side: retry later, or choose a model of another provider (GET /v1/models).`;
  return `${name} refused the request: check the model id (GET /v1/models); if it repeats, report it to the admin with the time of the call.`;
}

/** The BrowserdError for a failed provider call. `signal` is the call's own: aborted means we cancelled. */
export function providerFailure(provider: Provider, info: ProviderErrorInfo, key: string, signal: AbortSignal, timeoutMs: number): BrowserdError {
  const name = providerNames[provider];
  if (signal.aborted) {
    return new BrowserdError('timeout', 'the call was cancelled', { next: 'Call again if it is still wanted.', details: { provider } });
  }
  if (info.timedOut) {
    return new BrowserdError('timeout', `${name} did not answer within ${Math.round(timeoutMs / 1000)} s`, {
      next: 'Retry, ask for less (a smaller schema, fewer or shorter pages), or choose a faster model (GET /v1/models).',
      details: { provider },
    });
  }
  // The provider's own words travel as the error's page text, not in our message: a provider can echo what it
  // was sent ("the input is not allowed: ..."), and what a model is sent is page text.
  const said = info.message ? scrubKey(info.message, key) : undefined;
  const saidNote = said ? ` (its words are the page text of this error)` : '';
  if (info.status !== undefined) {
    return new BrowserdError('action_failed', `${provider} answered HTTP ${info.status}${saidNote}`, { next: nextFor(provider, info.status), details: { provider, status: info.status }, ...(said ? { pageText: said } : {}) });
  }
  return new BrowserdError('action_failed', `${provider} could not be reached${saidNote}`, {
    next: `Retry; if it repeats, the admin should check the ${name} base URL (BROWSERD_${provider.toUpperCase()}_BASE_URL) and the host's network.`,
    details: { provider },
    ...(said ? { pageText: said } : {}),
  });
}

/** A tool call's arguments as the provider sent them (OpenAI: a JSON string); anything but an object is refused. */
export function parseToolArgs(provider: Provider, name: string, raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new BrowserdError('action_failed', `${provider} answered a call of ${name} whose arguments are not a JSON object`, {
    next: 'Retry once; if it repeats, choose another model (GET /v1/models).',
    details: { provider },
  });
}

/** Schema names the providers accept for tools and response formats: letters, digits, _ and -, at most 64. */
export function wireName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return cleaned || 'answer';
}
