/** Daemon settings from flags and environment, resolved once at start. */
import { homedir, totalmem } from 'node:os';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { loadQuotaLimits, MAX_WHOLE_SETTING, WHOLE_TEXT, type QuotaLimits } from './quotas/limits.js';

// Defaults that other folders read too live here, so the configuration imports no feature (it is the ground).

/** Which HTTP server to run: `auto` is uWS where its native build loads, else node:http (http/transport/choose.ts). */
export type HttpChoice = 'auto' | 'uws' | 'node';
export const HTTP_CHOICES: readonly HttpChoice[] = ['auto', 'uws', 'node'];

/** Debian's webext-ublock-origin-chromium ships these lists (adblock/lists.ts installs and reads them). */
export const DEBIAN_LISTS_PACKAGE = 'webext-ublock-origin-chromium';
const DEBIAN_LISTS_DIR = '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist';
export const DEBIAN_FILTER_LISTS: readonly string[] = [`${DEBIAN_LISTS_DIR}/easylist.txt`, `${DEBIAN_LISTS_DIR}/easyprivacy.txt`];

/** How often the daemon looks for accounts disabled from outside it (the CLI writes the store); work that waits for a disabled account to be noticed waits at most this long. */
export const DISABLED_SWEEP_MS = 2000;

/** Tab builds at once (browser/tab-starts.ts), by default half the cores (at least one), leaving the rest to pages already open. */
export function defaultTabStarts(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

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
  /** Browsers one user may run at once, the default profile and named profiles together. */
  maxBrowsersPerUser: number;
  /** Open tabs one user may have, over all profiles. */
  maxTabsPerUser: number;
  /** Per-user quotas on crawls, tasks, monitors, recordings, HAR recordings and stored bytes (quotas/limits.ts). */
  quotas: QuotaLimits;
  /** MCP sessions one user may hold; opening one more ends the one idle the longest. */
  maxMcpSessionsPerUser: number;
  /** A browser with no tool call for this long is shut down; its tabs come back when it restarts. */
  browserIdleMs: number;
  /** New tabs the host builds at once over every browser (BROWSERD_TAB_STARTS; browser/tab-starts.ts). */
  tabStarts: number;
  /** Host names the daemon answers to besides loopback literals (BROWSERD_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** Peers whose X-Forwarded-For names the client (a fleet's HAProxy and desk); anyone else's is ignored. */
  trustedProxies: string[];
  /** Which HTTP server serves (BROWSERD_HTTP): uWS where it loads, node:http otherwise (http/transport/choose.ts). */
  http: HttpChoice;
  /** Browser origins that may call the daemon (BROWSERD_ALLOWED_ORIGINS). */
  allowedOrigins: string[];
  /** The longest a hand-off may live from creation, extensions included (BROWSERD_HANDOFF_MAX_S, default 24 h). */
  handoffMaxS: number;
  /** Longest timed CDP session a user may start (BROWSERD_CDP_SESSION_MAX_MINUTES). */
  cdpSessionMaxMinutes: number;
  /** Bytes of stored responses per user, all caches together; the oldest go first (BROWSERD_CACHE_MAX_MB). */
  cacheMaxBytesPerUser: number;
  /** A markitdown-mcp server (Streamable HTTP MCP endpoint) for types we do not read ourselves (BROWSERD_MARKITDOWN_URL). */
  markitdownUrl?: string;
  /** A docling-serve base URL for the same (BROWSERD_DOCLING_URL). */
  doclingUrl?: string;
  /** Longest one document conversion may take, built-in or sidecar (BROWSERD_CONVERTER_TIMEOUT_S, default 120). */
  converterTimeoutMs: number;
  /** A page download larger than this is cancelled and its bytes removed (BROWSERD_DOWNLOAD_MAX_MB, default 1024). */
  downloadMaxBytes: number;
  /** How long a share link of a stored file opens (BROWSERD_DOWNLOAD_LINK_TTL_S, default 30 min). */
  downloadLinkTtlS: number;
  /** Sign-ups one client address may make in an hour, when sign-up is on (BROWSERD_SIGNUP_PER_HOUR, default 5). */
  signupPerHour: number;
  /** Model providers: base URLs, the host's own keys, extra model ids and the per-request timeout. */
  models: ModelConfig;
  /**
   * Filter lists block_ads uses: Debian's EasyList and EasyPrivacy, then the files in BROWSERD_FILTER_LISTS
   * (colon- or comma-separated paths). Read from disk only; nothing downloads a list.
   */
  filterLists: string[];
}

/**
 * Where the three provider families are reached and with which host keys. A request's X-Model-Key wins over
 * the host key of the chosen model's provider; the keys are never logged, stored or returned.
 */
export interface ModelConfig {
  /** OpenAI-compatible Chat Completions base URL, with its `/v1` (BROWSERD_OPENAI_BASE_URL). */
  openaiBaseUrl: string;
  /** Anthropic Messages base URL (BROWSERD_ANTHROPIC_BASE_URL). */
  anthropicBaseUrl: string;
  /** Gemini generateContent base URL (BROWSERD_GEMINI_BASE_URL). */
  geminiBaseUrl: string;
  openaiKey?: string;
  anthropicKey?: string;
  geminiKey?: string;
  /** Extra model ids (`openai/…`, `anthropic/…`, `gemini/…`), comma-separated in BROWSERD_MODELS. */
  extraModels: string[];
  /** The model a call without `model` uses (BROWSERD_DEFAULT_MODEL; else the first preset with a host key). */
  defaultModel?: string;
  /** Longest one provider request may take (BROWSERD_MODEL_TIMEOUT_S, default 120). */
  timeoutMs: number;
}

/**
 * The memory this daemon may use: its cgroup's limit when one is set (a systemd unit's MemoryMax, a
 * container's limit), else the host's. Node answers a huge number or 0 when there is no limit.
 */
export function usableMemory(total = totalmem(), constrained = process.constrainedMemory?.() ?? 0): number {
  return constrained > 0 && constrained < total ? constrained : total;
}

/** One browser per ~600 MB of the memory it may use, at least 1: a typical profile with a few tabs stays under that. */
export function defaultMaxBrowsers(memory = usableMemory()): number {
  return Math.max(1, Math.floor(memory / (600 * 1024 * 1024)));
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

/** An admin-set http(s) address, checked at start so a typo fails there and not on a user's first call. */
function serviceUrl(name: string, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL, not "${raw}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, not "${raw}"`);
  return u.href.replace(/\/$/, '');
}

/**
 * `name` is a flag without its dashes, or the environment variable of a setting that has no flag. Decimal digits
 * only, from `min` to `max`: an empty value, a sign, 1e3 or 0x10 stop the start rather than mean 0 or something
 * Number() makes of them, and a huge one stops it rather than overflow a timer or a date later.
 */
function wholeNumber(name: string, raw: string | boolean | undefined, fallback: number, min: number, max = MAX_WHOLE_SETTING): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !WHOLE_TEXT.test(raw) || n < min || n > max) {
    throw new Error(`${name.startsWith('BROWSERD_') ? name : `--${name}`} takes a whole number >= ${min} and <= ${max}, not "${raw}"`);
  }
  return n;
}

/** Seconds that become a timer's milliseconds: at most the longest timer Node keeps (about 24.8 days). */
const MAX_TIMER_S = Math.floor(MAX_WHOLE_SETTING / 1000);

/** Levels pino takes (BROWSERD_LOG_LEVEL). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A switch variable: unset, or "0" or "1" (BROWSERD_HEADLESS=false must not silently mean headless). */
function switchOf(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== '0' && raw !== '1') throw new Error(`${name} takes 0 or 1, not "${raw}"`);
  return raw === '1';
}

/**
 * The settings other modules read from the environment themselves (the CDP timeout, thread counts, the disk
 * reserve, live links, the log level), checked here too so a bad value stops the start instead of being
 * replaced by a default where it is read.
 */
function checkModuleSettings(env: NodeJS.ProcessEnv) {
  wholeNumber('BROWSERD_CDP_TIMEOUT_MS', env.BROWSERD_CDP_TIMEOUT_MS, 0, 1);
  wholeNumber('BROWSERD_MARKDOWN_THREADS', env.BROWSERD_MARKDOWN_THREADS, 0, 1, 16);
  wholeNumber('BROWSERD_CONVERTER_THREADS', env.BROWSERD_CONVERTER_THREADS, 0, 1, 16);
  wholeNumber('BROWSERD_STORE_RESERVE_MB', env.BROWSERD_STORE_RESERVE_MB, 0, 0);
  wholeNumber('BROWSERD_LIVE_LINK_S', env.BROWSERD_LIVE_LINK_S, 0, 10, 86_400);
  const level = env.BROWSERD_LOG_LEVEL;
  if (level !== undefined && !LOG_LEVELS.includes(level)) throw new Error(`BROWSERD_LOG_LEVEL takes one of ${LOG_LEVELS.join(', ')}, not "${level}"`);
}

/** BROWSERD_ALLOW_TARGETS: exact address:port pairs, an IPv4 address or a bracketed IPv6 one, and a port. */
function allowTargetsOf(raw: string | undefined): string[] {
  const out = (raw ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const target of out) {
    const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):([0-9]{1,5})$/.exec(target);
    const port = m ? Number(m[2]) : 0;
    const v4ok = m && (m[1]!.startsWith('[') || m[1]!.split('.').every((o) => Number(o) <= 255));
    if (!m || !v4ok || port < 1 || port > 65535) throw new Error(`BROWSERD_ALLOW_TARGETS takes address:port pairs (10.0.0.5:443, [::1]:3000), not "${target}"`);
  }
  return out;
}

/**
 * Extra Chromium switches (BROWSERD_CHROME_ARGS): separated by spaces, or a JSON array of strings for a switch
 * whose value holds spaces (--host-resolver-rules="MAP * 127.0.0.1, EXCLUDE localhost"). Each must be a switch:
 * anything else on Chromium's command line is a page it would open at start, outside every tab's rules.
 */
export function chromeArgsOf(raw: string | undefined): string[] {
  if (!raw?.trim()) return [];
  let args: unknown = raw.split(/\s+/).filter(Boolean);
  if (raw.trim().startsWith('[')) {
    try {
      args = JSON.parse(raw);
    } catch {
      throw new Error('BROWSERD_CHROME_ARGS starts with "[" but is not JSON: give a JSON array of strings, or switches separated by spaces');
    }
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string' && a.startsWith('--'))) {
    throw new Error('BROWSERD_CHROME_ARGS takes Chromium switches (each starting with "--"), separated by spaces or as a JSON array of strings');
  }
  return args;
}

const list = (s: string | boolean | undefined) => (typeof s === 'string' ? s.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean) : []);

export function isLoopbackListen(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export function loadConfig(flags: Partial<Record<string, string | boolean>> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const listen = parseListen(String(flags.listen ?? env.BROWSERD_LISTEN ?? '127.0.0.1:8787'));
  const max = flags['max-browsers'] ?? env.BROWSERD_MAX_BROWSERS;
  const maxBrowsers = max === undefined ? defaultMaxBrowsers() : wholeNumber('max-browsers', max, 0, 1);
  const publicUrl = env.BROWSERD_PUBLIC_URL;
  let publicHost: string | undefined;
  if (publicUrl) {
    let u: URL | undefined;
    try {
      u = new URL(publicUrl);
    } catch {
      u = undefined;
    }
    // Every link the daemon hands out starts with it (ws:// for CDP sessions is made from http://).
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw new Error(`BROWSERD_PUBLIC_URL must be an http(s) URL, not "${publicUrl}"`);
    publicHost = u.hostname.toLowerCase();
  }
  const dataDir = String(flags.data ?? env.BROWSERD_DATA ?? defaultDataDir());
  // An empty one would be the working directory, wherever the daemon happened to start.
  if (!dataDir.trim()) throw new Error('--data (BROWSERD_DATA) takes a directory, not an empty value');
  const headless = switchOf('BROWSERD_HEADLESS', env.BROWSERD_HEADLESS);
  const allowPrivate = switchOf('BROWSERD_ALLOW_PRIVATE_NETWORK', env.BROWSERD_ALLOW_PRIVATE_NETWORK);
  checkModuleSettings(env);
  const allowedHosts = [...list(flags['allowed-hosts'] ?? env.BROWSERD_ALLOWED_HOSTS), ...(publicHost ? [publicHost] : [])];
  // Off loopback, a Host check cannot fall back on "any loopback literal": the names must be given.
  if (!isLoopbackListen(listen.host) && allowedHosts.length === 0) {
    throw new Error(`listening on ${listen.host} needs the host names clients use: set BROWSERD_ALLOWED_HOSTS (or --allowed-hosts) or BROWSERD_PUBLIC_URL`);
  }
  const http = String(flags.http ?? env.BROWSERD_HTTP ?? 'auto') as HttpChoice;
  if (!HTTP_CHOICES.includes(http)) throw new Error(`--http takes ${HTTP_CHOICES.join(', ')}, not "${http}"`);
  const idleS = wholeNumber('browser-idle-s', flags['browser-idle-s'] ?? env.BROWSERD_BROWSER_IDLE_S, 30 * 60, 0);
  return {
    host: listen.host,
    port: listen.port,
    dataDir,
    chrome: env.BROWSERD_CHROME || '/usr/bin/chromium',
    headless: flags.headful ? false : headless !== false,
    maxBrowsers,
    capacityRetryAfterS: 30,
    allowPrivateNetwork: flags['allow-private-network'] === true || allowPrivate === true,
    allowTargets: allowTargetsOf(env.BROWSERD_ALLOW_TARGETS),
    chromeArgs: chromeArgsOf(env.BROWSERD_CHROME_ARGS),
    shutdownGraceMs: 20000,
    searxngUrl: env.BROWSERD_SEARXNG_URL,
    publicUrl,
    maxBrowsersPerUser: wholeNumber('max-browsers-per-user', flags['max-browsers-per-user'] ?? env.BROWSERD_MAX_BROWSERS_PER_USER, 4, 1),
    maxTabsPerUser: wholeNumber('max-tabs-per-user', flags['max-tabs-per-user'] ?? env.BROWSERD_MAX_TABS_PER_USER, 100, 1),
    quotas: loadQuotaLimits(flags, env),
    maxMcpSessionsPerUser: wholeNumber('max-mcp-sessions-per-user', flags['max-mcp-sessions-per-user'] ?? env.BROWSERD_MAX_MCP_SESSIONS_PER_USER, 32, 1),
    browserIdleMs: idleS * 1000,
    tabStarts: wholeNumber('BROWSERD_TAB_STARTS', env.BROWSERD_TAB_STARTS, defaultTabStarts(), 1),
    allowedHosts,
    trustedProxies: list(flags['trusted-proxies'] ?? env.BROWSERD_TRUSTED_PROXIES),
    cdpSessionMaxMinutes: wholeNumber('cdp-session-max-minutes', flags['cdp-session-max-minutes'] ?? env.BROWSERD_CDP_SESSION_MAX_MINUTES, 120, 1),
    http,
    allowedOrigins: [...list(flags['allowed-origins'] ?? env.BROWSERD_ALLOWED_ORIGINS), ...(publicUrl ? [new URL(publicUrl).origin] : [])],
    handoffMaxS: wholeNumber('handoff-max-s', flags['handoff-max-s'] ?? env.BROWSERD_HANDOFF_MAX_S, 24 * 3600, 60),
    cacheMaxBytesPerUser: wholeNumber('cache-max-mb', flags['cache-max-mb'] ?? env.BROWSERD_CACHE_MAX_MB, 1024, 1) * 1024 * 1024,
    markitdownUrl: serviceUrl('BROWSERD_MARKITDOWN_URL', env.BROWSERD_MARKITDOWN_URL),
    doclingUrl: serviceUrl('BROWSERD_DOCLING_URL', env.BROWSERD_DOCLING_URL),
    converterTimeoutMs: wholeNumber('BROWSERD_CONVERTER_TIMEOUT_S', env.BROWSERD_CONVERTER_TIMEOUT_S, 120, 1, MAX_TIMER_S) * 1000,
    downloadMaxBytes: wholeNumber('download-max-mb', flags['download-max-mb'] ?? env.BROWSERD_DOWNLOAD_MAX_MB, 1024, 1) * 1024 * 1024,
    downloadLinkTtlS: wholeNumber('download-link-ttl-s', flags['download-link-ttl-s'] ?? env.BROWSERD_DOWNLOAD_LINK_TTL_S, 30 * 60, 1),
    signupPerHour: wholeNumber('BROWSERD_SIGNUP_PER_HOUR', env.BROWSERD_SIGNUP_PER_HOUR, 5, 1),
    models: {
      openaiBaseUrl: serviceUrl('BROWSERD_OPENAI_BASE_URL', env.BROWSERD_OPENAI_BASE_URL) ?? 'https://api.openai.com/v1',
      anthropicBaseUrl: serviceUrl('BROWSERD_ANTHROPIC_BASE_URL', env.BROWSERD_ANTHROPIC_BASE_URL) ?? 'https://api.anthropic.com',
      geminiBaseUrl: serviceUrl('BROWSERD_GEMINI_BASE_URL', env.BROWSERD_GEMINI_BASE_URL) ?? 'https://generativelanguage.googleapis.com',
      openaiKey: env.BROWSERD_OPENAI_API_KEY || undefined,
      anthropicKey: env.BROWSERD_ANTHROPIC_API_KEY || undefined,
      geminiKey: env.BROWSERD_GEMINI_API_KEY || undefined,
      extraModels: (env.BROWSERD_MODELS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
      defaultModel: env.BROWSERD_DEFAULT_MODEL || undefined,
      timeoutMs: wholeNumber('BROWSERD_MODEL_TIMEOUT_S', env.BROWSERD_MODEL_TIMEOUT_S, 120, 1, MAX_TIMER_S) * 1000,
    },
    filterLists: [...DEBIAN_FILTER_LISTS, ...(env.BROWSERD_FILTER_LISTS ?? '').split(/[:,]/).map((x) => x.trim()).filter(Boolean)],
  };
}
