/**
 * Everything one session needs to show an identity, computed once per identity and browser build: the CDP
 * overrides, the page script, and the header values a document request is rewritten with when the identity
 * is switched while that request is already on its way (session.ts).
 */
import type { Protocol } from 'devtools-protocol';
import type { EffectiveIdentity } from './merge.js';
import { identityScript } from './page-script.js';
import { acceptLanguageHeader, clientHintHeaders, nativeMetadata, userAgentOverride } from './user-agent.js';

export interface IdentityPlan {
  /** Equal plans have equal keys: a session already showing this plan is left alone. */
  key: string;
  userAgent: Protocol.Emulation.SetUserAgentOverrideRequest;
  hardwareConcurrency: number;
  script: string;
  /** Header values by lower-case name (User-Agent, Accept-Language, every Sec-CH-UA header). */
  headers: Record<string, string>;
}

/** What the browser shows without an identity: the headers a switch back to native rewrites to. */
export interface NativeAgent {
  userAgent: string;
  hardwareConcurrency: number;
  headers: Record<string, string>;
}

export function identityPlan(identity: EffectiveIdentity, fullVersion: string): IdentityPlan {
  const userAgent = userAgentOverride(identity, fullVersion);
  return {
    key: JSON.stringify([fullVersion, identity]),
    userAgent,
    hardwareConcurrency: identity.hardwareConcurrency,
    script: identityScript(identity),
    headers: { 'user-agent': userAgent.userAgent, 'accept-language': acceptLanguageHeader(identity.languages), ...clientHintHeaders(userAgent.userAgentMetadata!) },
  };
}

export function nativeAgent(userAgent: string, fullVersion: string, hardwareConcurrency: number): NativeAgent {
  return { userAgent, hardwareConcurrency, headers: { 'user-agent': userAgent, ...clientHintHeaders(nativeMetadata(fullVersion)) } };
}

/**
 * A paused request's headers as they must go out now that the session shows `plan` (or nothing): the user
 * agent and every client hint the request carries are replaced; Accept-Language is set for an identity and left
 * to the browser's own default otherwise. Other headers are untouched.
 */
export function rewriteHeaders(headers: Record<string, string>, plan: IdentityPlan | undefined, native: NativeAgent): { name: string; value: string }[] {
  const values = plan?.headers ?? native.headers;
  const out: { name: string; value: string }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'accept-language') continue;
    out.push({ name, value: lower in values ? values[lower]! : value });
  }
  if (plan) out.push({ name: 'Accept-Language', value: plan.headers['accept-language']! });
  return out;
}
