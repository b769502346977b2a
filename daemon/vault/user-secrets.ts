/**
 * What must be scrubbed for a user: every vault value and every code the daemon filled lately. Read fresh on
 * each use (the vault caches its values per user), so a value saved a moment ago is hidden from the next result.
 */
import type { DaemonEnv } from '../env.js';

// Where redaction applies: tool results and errors (dispatch.ts), audit arguments (redact.ts) and log lines
// (log-scrub.ts). Anything that later keeps page traffic or content (a HAR recorder, a response cache) must
// pass what it stores through scrubText(text, scrubList(userSecrets(env, user))) from daemon/tools/redact.ts
// before writing it; none exists yet.

type SecretSources = Pick<DaemonEnv, 'vault' | 'filledCodes'>;

export function userSecrets(env: SecretSources, user: string): string[] {
  return [...env.vault.values(user), ...env.filledCodes.list(user)];
}

/** Every user's secrets, for output that is not any one user's (log lines). */
export function everyUsersSecrets(env: SecretSources & Pick<DaemonEnv, 'users'>): string[] {
  const all = new Set<string>();
  for (const u of env.users.list()) for (const v of userSecrets(env, u.id)) all.add(v);
  return [...all];
}
