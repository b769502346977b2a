/** `browserd serve`: start the daemon, create a first user on an empty data dir, stop cleanly on SIGTERM. */
import { loadConfig } from '../daemon/config.js';
import { startDaemon } from '../daemon/main.js';

export async function serve(flags: Record<string, string | boolean>) {
  let cfg;
  try {
    cfg = loadConfig(flags);
  } catch (e) {
    process.stderr.write(`browserd: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const d = await startDaemon(cfg).catch((e) => {
    process.stderr.write(`browserd: ${(e as Error).message}\n`);
    process.exit(1);
  });
  const base = cfg.publicUrl ?? d.url;
  const adminKey = await d.env.users.ensureAdminKey();
  if (adminKey) process.stdout.write(`Admin key (for /v1/admin/*; shown once): ${adminKey}\n`);
  if (d.env.users.list().length === 0) {
    const name = process.env.BROWSERD_FIRST_USER || 'me';
    const { token } = await d.env.users.add(name);
    process.stdout.write(
      [
        `Created the first user "${name}".`,
        `MCP URL: ${base}/mcp`,
        `Connect an MCP client with header  Authorization: Bearer ${token}`,
        `Token (shown once; replace with 'browserd user token ${name}'):`,
        token,
        '',
      ].join('\n'),
    );
  }
  process.stdout.write(`browserd ${base} (MCP ${base}/mcp, health ${base}/health)\n`);
  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`browserd: ${sig}, stopping\n`);
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
