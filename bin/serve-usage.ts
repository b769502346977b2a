/**
 * What `browserd serve --help` prints under the header (bin/cli.ts): the flags from the settings table and a
 * word on the rest. A module of its own so a test can read it without running the command
 * (test/contract/settings.test.ts compares its flags with the table's).
 */
import { flagUsage } from '../daemon/settings.js';

export const SERVE_USAGE = `${flagUsage(118, '                 ', '  browserd serve')}
      Each flag has a BROWSERD_ variable (--listen: BROWSERD_LISTEN); more settings are variables only
      (BROWSERD_CHROME, BROWSERD_PUBLIC_URL, model keys, search and converter services). docs/operations.md has
      every one, with its default.
      On a data dir with no users, creates a first user (BROWSERD_FIRST_USER, default "me") and writes its token
      and the admin key to <data>/first-run-credentials.txt (mode 0600); stdout shows the MCP URL and that path.
`;
