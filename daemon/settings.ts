/**
 * Every setting an operator can give the daemon, in one table: its `browserd serve` flag (when it has one), its
 * environment variable, its default and what it does. `browserd serve --help` lists the flags from it, the
 * parser takes exactly those flags (bin/args.ts), and `npm run gen` writes the settings table of
 * docs/operations.md from it (scripts/settings-doc.ts), so the three cannot disagree. A contract test fails
 * when the code reads a BROWSERD_ variable this table lacks.
 * Reading and checking the values stays in config.ts (and the few modules that read their own variable).
 */
import { QUOTAS } from './quotas/limits.js';

export interface Setting {
  /** The `browserd serve` flag without its dashes; absent for a setting only the environment gives. */
  flag?: string;
  /** What the flag takes, as --help shows it (`HOST:PORT`, `N`); absent for a switch. */
  arg?: string;
  /** The environment variable (for a switch, with the value that turns it on: `BROWSERD_HEADLESS=0`). */
  env: string;
  /** The default, in words (Markdown). */
  default: string;
  /** What it does (Markdown, one paragraph). */
  about: string;
  /** Which part of the docs it belongs with. */
  group: SettingGroup;
}

export type SettingGroup = 'serve' | 'limits' | 'network' | 'services' | 'models' | 'tuning';

export const SETTING_GROUPS: Record<SettingGroup, string> = {
  serve: 'Where it listens and keeps its data',
  network: 'Who may call it, and what pages may reach',
  limits: 'Limits per user and per host',
  services: 'Services it can use',
  models: 'Model providers',
  tuning: 'Tuning',
};

const quotaRows: Setting[] = Object.values(QUOTAS).map((q) => ({
  flag: q.flag,
  arg: 'megabytes' in q ? 'MB' : 'N',
  env: q.env,
  default: String(q.default),
  about: `the most ${'megabytes' in q ? 'MB of ' : ''}${q.counts} one user may hold; past it a call is refused with \`quota_exceeded\`, naming this flag`,
  group: 'limits',
}));

export const SETTINGS: readonly Setting[] = [
  { flag: 'listen', arg: 'HOST:PORT', env: 'BROWSERD_LISTEN', default: '`127.0.0.1:8787`', about: 'the address the API, MCP, the live view and CDP sessions are served on', group: 'serve' },
  { flag: 'data', arg: 'DIR', env: 'BROWSERD_DATA', default: '`~/.local/share/browserd`', about: 'users, tabs, the vault, files and every record (LMDB), plus each user\'s Chromium profile; one daemon holds a data dir at a time', group: 'serve' },
  { flag: 'http', arg: 'auto|uws|node', env: 'BROWSERD_HTTP', default: '`auto`', about: 'which HTTP server serves: uWebSockets.js where its native build loads for this Node (Node 20), else `node:http` with `ws` (Node 22, 24). Both serve the same routes, MCP, live view and CDP sessions; the start line (`http`, `httpWhy`) and `browserd doctor` say which one serves and why. uWebSockets.js closes a connection whose method is none of the nine standard ones without an answer; `node:http` answers it 405 with `Allow`', group: 'serve' },
  { flag: 'headful', env: 'BROWSERD_HEADLESS=0', default: 'headless', about: 'run Chromium with windows (needs a display)', group: 'serve' },
  { env: 'BROWSERD_CHROME', default: '`/usr/bin/chromium`', about: 'the Chromium binary (Debian\'s `chromium` package)', group: 'serve' },
  { env: 'BROWSERD_CHROME_ARGS', default: 'none', about: 'more Chromium switches for every user\'s browser, separated by spaces, or a JSON array of strings when a value holds spaces (`["--host-resolver-rules=MAP *.test 127.0.0.1, EXCLUDE localhost"]`); list switches such as `--disable-features` are merged with ours', group: 'serve' },
  { env: 'BROWSERD_FIRST_USER', default: '`me`', about: 'the name of the user created on a data dir with no users; its token and the admin key go to `<data>/first-run-credentials.txt` (mode 0600)', group: 'serve' },
  { env: 'BROWSERD_VAULT_KEY', default: '`<data>/vault.key`', about: 'the vault\'s key (32 bytes as 64 hex characters or base64) instead of the key file; a missing or different key locks the vault with `not_configured`', group: 'serve' },
  { env: 'BROWSERD_LOG_LEVEL', default: '`info`', about: 'pino\'s level for the JSON log lines on stdout (`debug`, `info`, `warn`, `error`)', group: 'serve' },
  { env: 'BROWSERD_STORE_RESERVE_MB', default: '64', about: 'while the data dir\'s disk has less free than this, writes that add data are refused before they start (deletions still go through); 0 turns it off', group: 'serve' },
  { flag: 'trusted-proxies', arg: 'a,b', env: 'BROWSERD_TRUSTED_PROXIES', default: 'none', about: 'Addresses of proxies in front of this host (a fleet\'s HAProxy and desk): a request from one of them is taken to come from the last address its `X-Forwarded-For` names, for sign-up limits and the request log; from any other peer the header is ignored', group: 'network' },
  { flag: 'allowed-hosts', arg: 'a,b', env: 'BROWSERD_ALLOWED_HOSTS', default: 'none', about: '`Host` names the API answers besides `localhost` and IP literals (the DNS-rebinding guard); required, or `BROWSERD_PUBLIC_URL`, when listening on a non-loopback address', group: 'network' },
  { flag: 'allowed-origins', arg: 'o,p', env: 'BROWSERD_ALLOWED_ORIGINS', default: 'none', about: 'browser origins that may call the API', group: 'network' },
  { env: 'BROWSERD_PUBLIC_URL', default: 'none', about: 'the base URL clients use (behind a proxy); its host and origin are allowed too, and links the daemon prints start with it', group: 'network' },
  { flag: 'allow-private-network', env: 'BROWSERD_ALLOW_PRIVATE_NETWORK=1', default: 'off', about: 'let pages reach loopback, private and link-local addresses (development and tests only)', group: 'network' },
  { env: 'BROWSERD_ALLOW_TARGETS', default: 'none', about: 'exact `address:port` pairs pages may reach although private, e.g. `10.0.0.5:443,[::1]:3000`', group: 'network' },
  { env: 'BROWSERD_SIGNUP_PER_HOUR', default: '5', about: 'sign-ups one client address may make in an hour, when sign-up is on', group: 'network' },
  { flag: 'max-browsers', arg: 'N', env: 'BROWSERD_MAX_BROWSERS', default: 'one per 600 MB of the memory it may use', about: 'browsers on this host at once, over every user; the memory is the unit\'s `MemoryMax` or a container\'s limit when set, else the host\'s', group: 'limits' },
  { flag: 'max-browsers-per-user', arg: 'N', env: 'BROWSERD_MAX_BROWSERS_PER_USER', default: '4', about: 'one user\'s browsers at once (the default profile and each named profile count)', group: 'limits' },
  { flag: 'max-tabs-per-user', arg: 'N', env: 'BROWSERD_MAX_TABS_PER_USER', default: '100', about: 'one user\'s open tabs, all profiles together', group: 'limits' },
  { flag: 'max-mcp-sessions-per-user', arg: 'N', env: 'BROWSERD_MAX_MCP_SESSIONS_PER_USER', default: '32', about: 'past it, the user\'s MCP session idle the longest ends', group: 'limits' },
  ...quotaRows,
  { flag: 'browser-idle-s', arg: 'S', env: 'BROWSERD_BROWSER_IDLE_S', default: '1800', about: 'a browser unused this long shuts down to free its slot (its tabs reopen on the next call); 0 never. A browser in the middle of a call is never idle', group: 'limits' },
  { flag: 'handoff-max-s', arg: 'S', env: 'BROWSERD_HANDOFF_MAX_S', default: '86400', about: 'the longest a hand-off may live from its creation; `browser_handoff_extend` cannot go past it', group: 'limits' },
  { flag: 'cdp-session-max-minutes', arg: 'M', env: 'BROWSERD_CDP_SESSION_MAX_MINUTES', default: '120', about: 'the longest timed CDP session (`browser_sessions`) a user may start', group: 'limits' },
  { flag: 'cache-max-mb', arg: 'MB', env: 'BROWSERD_CACHE_MAX_MB', default: '1024', about: 'stored responses per user, all caches together; the oldest go first', group: 'limits' },
  { flag: 'download-max-mb', arg: 'MB', env: 'BROWSERD_DOWNLOAD_MAX_MB', default: '1024', about: 'a page download larger than this is cancelled and its bytes removed', group: 'limits' },
  { flag: 'download-link-ttl-s', arg: 'S', env: 'BROWSERD_DOWNLOAD_LINK_TTL_S', default: '1800', about: 'how long a share link (`browser_download_link`) opens', group: 'limits' },
  { env: 'BROWSERD_LIVE_LINK_S', default: '300', about: 'how long a live link opens before a viewer connects (10-86400 s)', group: 'limits' },
  { env: 'BROWSERD_SEARXNG_URL', default: 'none', about: 'a SearXNG base URL: the web search backend for `browser_search`', group: 'services' },
  { env: 'BROWSERD_BRAVE_API_KEY', default: 'none', about: 'a Brave Search API key: the other backend for `browser_search`', group: 'services' },
  { env: 'BROWSERD_BRAVE_URL', default: 'Brave\'s endpoint', about: 'where Brave Search requests go (a compatible server)', group: 'services' },
  { env: 'BROWSERD_MARKITDOWN_URL', default: 'none', about: 'a markitdown-mcp server\'s Streamable HTTP endpoint, for document types browserd does not read itself', group: 'services' },
  { env: 'BROWSERD_DOCLING_URL', default: 'none', about: 'a docling-serve base URL, for the same', group: 'services' },
  { env: 'BROWSERD_CONVERTER_TIMEOUT_S', default: '120', about: 'the longest one document conversion may take, built-in or sidecar', group: 'services' },
  { env: 'BROWSERD_FILTER_LISTS', default: 'none', about: 'filter lists of your own for `block_ads`, added to Debian\'s EasyList and EasyPrivacy (colon- or comma-separated paths)', group: 'services' },
  { env: 'BROWSERD_OPENAI_BASE_URL', default: '`https://api.openai.com/v1`', about: 'any OpenAI-compatible server; include its `/v1`', group: 'models' },
  { env: 'BROWSERD_ANTHROPIC_BASE_URL', default: '`https://api.anthropic.com`', about: 'the Anthropic Messages API', group: 'models' },
  { env: 'BROWSERD_GEMINI_BASE_URL', default: '`https://generativelanguage.googleapis.com`', about: 'the Gemini API (the SDK adds `/v1beta`)', group: 'models' },
  { env: 'BROWSERD_OPENAI_API_KEY', default: 'none', about: 'the host\'s key for OpenAI-compatible models (a request\'s `X-Model-Key` wins)', group: 'models' },
  { env: 'BROWSERD_ANTHROPIC_API_KEY', default: 'none', about: 'the host\'s key for Anthropic models', group: 'models' },
  { env: 'BROWSERD_GEMINI_API_KEY', default: 'none', about: 'the host\'s key for Gemini models', group: 'models' },
  { env: 'BROWSERD_MODELS', default: 'none', about: 'extra model ids, comma-separated: `openai/…`, `anthropic/…`, `gemini/…`', group: 'models' },
  { env: 'BROWSERD_DEFAULT_MODEL', default: 'the first preset whose provider has a host key', about: 'the model a call without `model` uses', group: 'models' },
  { env: 'BROWSERD_MODEL_TIMEOUT_S', default: '120', about: 'the longest one provider request may take', group: 'models' },
  { env: 'BROWSERD_TAB_STARTS', default: 'half the cores (at least 1)', about: 'new tabs the host builds at once over every user; the rest wait their turn, first come first served, so work on pages already open keeps its share of the cores', group: 'tuning' },
  { env: 'BROWSERD_MARKDOWN_THREADS', default: 'one per spare core (1-4)', about: 'worker threads that turn pages into Markdown for `browser_read`, off the thread that serves CDP, MCP and the proxy', group: 'tuning' },
  { env: 'BROWSERD_CONVERTER_THREADS', default: 'one per spare core (1-4)', about: 'worker threads that convert documents (PDF, Office, feeds)', group: 'tuning' },
  { env: 'BROWSERD_CDP_TIMEOUT_MS', default: '30000', about: 'how long one DevTools command may take before it fails; raise it on a slow host', group: 'tuning' },
];

/** The variable's name without a value (`BROWSERD_HEADLESS=0` -> `BROWSERD_HEADLESS`). */
export const envName = (s: Setting) => s.env.replace(/=.*$/, '');

/** `[--listen HOST:PORT] [--headful] ...` wrapped to `width`, each line after the first indented by `indent`. */
export function flagUsage(width: number, indent: string, first: string): string {
  const items = SETTINGS.filter((s) => s.flag).map((s) => `[--${s.flag}${s.arg ? ` ${s.arg}` : ''}]`);
  const lines: string[] = [];
  let line = first;
  for (const item of items) {
    if (line.length + 1 + item.length > width && line.trim() !== first.trim()) {
      lines.push(line);
      line = indent;
    }
    line += (line === indent ? '' : ' ') + item;
  }
  lines.push(line);
  return lines.join('\n');
}
