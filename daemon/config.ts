/** Daemon settings from flags and environment, resolved once at start. */
import { homedir, totalmem } from 'node:os';
import { join } from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  chrome: string;
  headless: boolean;
  maxBrowsers: number;
  /** Seconds a client should wait before retrying when no browser slot is free. */
  capacityRetryAfterS: number;
  /** Pages may reach loopback/private addresses (development and tests only). */
  allowPrivateNetwork: boolean;
  /** address:port pairs pages may reach although private (BROWSERD_ALLOW_TARGETS, comma-separated). */
  allowTargets: string[];
  /** Extra Chromium switches (tests: --host-resolver-rules). */
  chromeArgs: string[];
  /** Bound on a graceful shutdown before the process exits anyway. */
  shutdownGraceMs: number;
  /** Search backend for browser_search: a SearXNG base URL. */
  searxngUrl?: string;
  /** Public base URL used in links we print (defaults to http://host:port). */
  publicUrl?: string;
}

/** One browser per ~600 MB of memory, at least 1: a typical profile with a few tabs stays under that. */
export function defaultMaxBrowsers(): number {
  return Math.max(1, Math.floor(totalmem() / (600 * 1024 * 1024)));
}

export function parseListen(s: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(s.trim());
  if (!m) throw new Error(`--listen takes HOST:PORT (for example 127.0.0.1:8787), not "${s}"`);
  const port = Number(m[2]);
  if (port > 65535) throw new Error(`port ${port} is out of range`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

export function defaultDataDir(): string {
  return process.env.BROWSERD_DATA || join(homedir(), '.local', 'share', 'browserd');
}

export function loadConfig(flags: Partial<Record<string, string | boolean>> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const listen = parseListen(String(flags.listen ?? env.BROWSERD_LISTEN ?? '127.0.0.1:8787'));
  const max = flags['max-browsers'] ?? env.BROWSERD_MAX_BROWSERS;
  const maxBrowsers = max === undefined ? defaultMaxBrowsers() : Number(max);
  if (!Number.isInteger(maxBrowsers) || maxBrowsers < 1) throw new Error(`--max-browsers takes a whole number >= 1, not "${max}"`);
  return {
    host: listen.host,
    port: listen.port,
    dataDir: String(flags.data ?? env.BROWSERD_DATA ?? defaultDataDir()),
    chrome: env.BROWSERD_CHROME || '/usr/bin/chromium',
    headless: flags.headful ? false : env.BROWSERD_HEADLESS !== '0',
    maxBrowsers,
    capacityRetryAfterS: 30,
    allowPrivateNetwork: flags['allow-private-network'] === true || env.BROWSERD_ALLOW_PRIVATE_NETWORK === '1',
    allowTargets: (env.BROWSERD_ALLOW_TARGETS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
    chromeArgs: env.BROWSERD_CHROME_ARGS ? env.BROWSERD_CHROME_ARGS.split(/\s+/).filter(Boolean) : [],
    shutdownGraceMs: 20000,
    searxngUrl: env.BROWSERD_SEARXNG_URL,
    publicUrl: env.BROWSERD_PUBLIC_URL,
  };
}
