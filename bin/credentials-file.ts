/**
 * Secrets made at first start (the admin key, the first user's token) go to a file only the daemon's user can
 * read, never to stdout: stdout of a service lands in the journal, which others may read.
 */
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

export const CREDENTIALS_FILE = 'first-run-credentials.txt';

export function writeCredentials(dataDir: string, lines: Record<string, string>): string {
  const path = join(dataDir, CREDENTIALS_FILE);
  const body = [
    `# browserd: secrets created ${new Date().toISOString()}. Keep them like passwords; delete this file once copied.`,
    ...Object.entries(lines).map(([k, v]) => `${k}=${v}`),
    '',
  ].join('\n');
  writeFileSync(path, body, { mode: 0o600 });
  // The mode of writeFileSync applies only to a new file: an old one keeps its own, so set it either way.
  chmodSync(path, 0o600);
  return path;
}
