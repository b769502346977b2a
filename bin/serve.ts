/**
 * `browserd serve`: start the daemon, create a first user on an empty data dir, stop cleanly on SIGTERM.
 * stdout carries the daemon's log, one JSON object a line. The lines meant for a person (the first user, where
 * to connect, stopping) go to stderr when it is a terminal; each is also logged as JSON, so under systemd,
 * where both streams reach the journal, `journalctl -o cat | jq` reads every line.
 */
import { loadConfig } from '../daemon/config.js';
import { startDaemon } from '../daemon/main.js';
import { writeCredentials } from './credentials-file.js';
import { portInUse } from './port-in-use.js';

/** A line for a person at a terminal; a service's journal gets the JSON log line beside it instead. */
const say = (text: string) => {
  if (process.stderr.isTTY) process.stderr.write(`${text}\n`);
};

export async function serve(flags: Record<string, string | boolean>) {
  // Whatever this process or its browsers create (profiles, files, LMDB) is for the daemon's user alone.
  process.umask(0o077);
  let cfg;
  try {
    cfg = loadConfig(flags);
  } catch (e) {
    process.stderr.write(`browserd: ${(e as Error).message}\n`);
    process.exit(2);
  }
  // Asked before the data dir is made or locked: a second start must change nothing.
  const inUse = await portInUse(cfg.host, cfg.port);
  if (inUse) {
    process.stderr.write(`browserd: ${inUse}\n`);
    process.exit(1);
  }
  const d = await startDaemon(cfg).catch((e) => {
    process.stderr.write(`browserd: ${(e as Error).message}\n`);
    process.exit(1);
  });
  const base = cfg.publicUrl ?? d.url;
  const secrets: Record<string, string> = {};
  const adminKey = await d.env.users.ensureAdminKey();
  if (adminKey) secrets.admin_key = adminKey;
  let firstUser: string | undefined;
  if (d.env.users.list().length === 0) {
    firstUser = process.env.BROWSERD_FIRST_USER || 'me';
    const { token } = await d.env.users.add(firstUser);
    Object.assign(secrets, { user: firstUser, token, mcp_url: `${base}/mcp` });
  }
  if (Object.keys(secrets).length) {
    const file = writeCredentials(cfg.dataDir, secrets);
    const lines = firstUser
      ? [`Created the first user "${firstUser}".`, `MCP URL: ${base}/mcp`, `Its token${adminKey ? ' and the admin key' : ''} are in ${file} (readable by you only).`, `Connect an MCP client with header  Authorization: Bearer <token from that file>`]
      : [`Created an admin key (for /v1/admin/*); it is in ${file} (readable by you only).`];
    say(lines.join('\n'));
    if (firstUser) d.env.log.info({ user: firstUser, mcp: `${base}/mcp`, credentials: file }, 'first user created');
    else d.env.log.info({ credentials: file }, 'admin key created');
  }
  say(`browserd ${base} (MCP ${base}/mcp, health ${base}/health)`);
  if (process.getuid?.() === 0) {
    // Chromium refuses its sandbox as root, so every user's pages would run unsandboxed: not something to do quietly.
    const why = "running as root: every user's Chromium runs WITHOUT its sandbox (--no-sandbox), so a page that breaks the renderer is not contained";
    d.env.log.warn({ uid: 0 }, why);
    say(`browserd: WARNING: ${why}.\n          Run it as a user of its own: systemd/browserd.service does (see "Running as a service" in docs/operations.md).`);
  }
  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    say(`browserd: ${sig}, stopping`);
    d.env.log.info({ signal: sig }, 'stopping');
    const hard = setTimeout(() => process.exit(1), cfg.shutdownGraceMs + 5000);
    hard.unref();
    await d.stop();
    process.exit(0);
  };
  // One user's bad page or request must never take everyone's daemon down: a stray rejection is logged, not fatal.
  process.on('unhandledRejection', (reason) => d.env.log.error({ err: reason instanceof Error ? reason.stack : String(reason) }, 'unhandled rejection'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
