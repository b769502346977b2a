/**
 * What must be scrubbed for a user: every vault value and every code the daemon filled lately. Read fresh on
 * each use (the vault caches its values per user), so a value saved a moment ago is hidden from the next result.
 */
import type { Platform } from '../platform.js';
import { scrubDeep, scrubList } from '../call/redact.js';

// Where redaction applies: tool results and errors (dispatch.ts), audit arguments (redact.ts), log lines
// (log-scrub.ts), crawl items as stored and exported (crawl/engine.ts, crawl/export.ts), the response cache
// (cache/redact.ts), HAR recordings and captures (traffic/redact.ts), server-run tasks as stored and as sent
// to their model (tasks/scrub.ts) and site notes (tools/site.ts). Anything new that keeps page traffic or
// content must scrub what it stores with userSecretForms before writing it.

type SecretSources = Pick<Platform, 'vault' | 'filledCodes'>;

export function userSecrets(env: SecretSources, user: string): string[] {
  return [...env.vault.values(user), ...env.filledCodes.list(user)];
}

/**
 * The user's secrets to hide from one tool call's result and audit entry (DispatchHooks.secretsOf, wired in
 * main.ts); a vault that cannot be read had nothing filled from it, so the call still answers.
 */
export function callSecrets(env: SecretSources & Pick<Platform, 'log'>, user: string): string[] {
  try {
    return userSecrets(env, user);
  } catch (e) {
    env.log.error({ user, err: e instanceof Error ? e.message : String(e) }, 'vault values unreadable for scrubbing');
    return env.filledCodes.list(user);
  }
}

/** Every user's secrets, for output that is not any one user's (log lines). */
export function everyUsersSecrets(env: SecretSources & Pick<Platform, 'users'>): string[] {
  const all = new Set<string>();
  for (const id of env.users.ids()) for (const v of userSecrets(env, id)) all.add(v);
  return [...all];
}

/**
 * Every form of the user's secrets (call/secret-forms.ts), longest first: what scrubText and scrubDeep take.
 * Read once per answer. A vault that cannot be read (an altered record) had nothing filled from it, so its
 * filled codes alone are hidden then: a store or an output never fails for want of the list.
 */
export function userSecretForms(env: SecretSources, user: string): string[] {
  let values: string[];
  try {
    values = userSecrets(env, user);
  } catch {
    values = env.filledCodes.list(user);
  }
  return scrubList(values);
}

/** A function that hides the user's secrets in any value; the secrets are read once, when it is made. */
export function secretScrubber(env: SecretSources, user: string): <T>(value: T) => T {
  const forms = userSecretForms(env, user);
  return (value) => scrubDeep(value, forms);
}
