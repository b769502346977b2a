/**
 * What must be scrubbed for a user: every vault value and every code the daemon filled lately. Read fresh on
 * each use (the vault caches its values per user), so a value saved a moment ago is hidden from the next result.
 */
import type { DaemonEnv } from '../env.js';

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
