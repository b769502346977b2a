/**
 * Before `serve` touches its data dir: is the address it will listen on free? When it is not, say who holds
 * it (a browserd answers GET /health with its version; anything else is "another program"), so a second
 * start neither half-creates a data dir nor leaves the operator guessing.
 */
import { createServer } from 'node:net';

/** Undefined when host:port can be bound now; else the sentence to print. */
export async function portInUse(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const free = await new Promise<boolean | Error>((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRINUSE' ? false : e));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
  if (free === true) return undefined;
  // Another failure (an address not of this host, a port it may not bind) is the listen's to report later.
  if (free instanceof Error) return undefined;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const holder = await browserdAt(where);
  return holder
    ? `${where} is in use by a browserd (version ${holder}) already running there; stop it first (systemctl stop browserd) or pick another --listen`
    : `${where} is in use by another program; pick another --listen, or stop what holds it (ss -ltnp 'sport = :${port}' names it)`;
}

/** The version a browserd at this address reports, or undefined when what answers is not one. */
async function browserdAt(where: string): Promise<string | undefined> {
  try {
    const res = await fetch(`http://${where}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { version?: unknown };
    return typeof body.version === 'string' ? body.version : undefined;
  } catch {
    return undefined;
  }
}
