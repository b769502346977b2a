/**
 * Toolsets: an MCP connection may ask for fewer tools than all 75 (`/mcp?tools=core,vault`), so an agent that
 * only browses pays for the browsing tools' definitions and no others. The sets are named by feature and
 * defined here only; every tool is in exactly one (test/unit/server/toolsets.test.ts). Without the query a
 * connection has every tool, as before. The set is fixed when the MCP session is created (mcp.ts).
 */
import { BrowserdError } from '../../protocol/errors.js';
import { own } from '../../protocol/own.js';

const b = (names: string) => names.split(/\s+/).filter(Boolean).map((n) => `browser_${n}`);

export const TOOLSETS: Readonly<Record<string, readonly string[]>> = {
  core: b(`open tabs close_tab focus_tab workspaces contexts navigate history wait snapshot screenshot click type fill press hover
    drag scroll fill_form select_options upload allow_confirm viewport evaluate read_text read find_text query similar extract search
    log status`),
  vault: b('vault_list fill_secret fill_totp fill_otp login'),
  sessions: b('session_save session_load session_list session_delete'),
  crawl: b('crawl crawl_status map explore recall remember'),
  records: b('record record_script replay replay_wait'),
  monitors: b('monitor'),
  traffic: b('network capture route har api_map api_call'),
  docs: b('downloads download_get download_link convert pdf'),
  handoff: b('handoff handoff_wait handoff_extend handoff_resolve handoffs captcha_frames captcha_inspect captcha_act'),
  live: b('viewer'),
  models: b('extract_ai'),
  cdp: b('sessions'),
};

/** What each set is for, in a line: docs/tools.md (scripts/tools-doc.ts) heads each set's section with it. */
export const TOOLSET_ABOUT: Readonly<Record<string, string>> = {
  core: 'Tabs, navigation, the snapshot, input and reading the page: what most browsing needs.',
  vault: 'The vault: secrets filled unseen, sign-in.',
  sessions: 'Saved signed-in sessions (cookies and storage).',
  crawl: 'Reading whole sites: crawls, URL maps, exploration and what is remembered of a site.',
  records: 'Recordings and their replays.',
  monitors: 'Pages watched on a schedule, with a webhook when they change.',
  traffic: 'The page\'s network: responses, captures, routes, HAR recordings and the API learnt from them.',
  docs: 'Files and documents: downloads, conversions, PDFs.',
  handoff: 'A person\'s help: hand-offs and CAPTCHA challenges.',
  live: 'The live view of the browser for a person.',
  models: 'Extraction by a model.',
  cdp: 'Raw Chrome DevTools Protocol sessions for programs.',
};

/** Every tool: the same as giving no query at all. */
const ALL = 'all';

/**
 * The tools a `tools` query value names (comma-separated set names), or undefined for every tool (no value,
 * or "all" among them). An unknown name is a validation_error that names the known ones.
 */
export function toolsetFilter(value: string | null | undefined): ReadonlySet<string> | undefined {
  if (value === null || value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const known = [...Object.keys(TOOLSETS), ALL];
  const unknown = names.filter((n) => n !== ALL && !own(TOOLSETS, n));
  if (!names.length || unknown.length) {
    const what = names.length ? `unknown toolset ${unknown.map((n) => `"${n.slice(0, 40)}"`).join(', ')}` : 'the tools query names no toolset';
    throw new BrowserdError('validation_error', what, { next: `Toolsets are: ${known.join(', ')}. Ask for several with commas (/mcp?tools=core,vault), or leave tools out for every tool.` });
  }
  if (names.includes(ALL)) return undefined;
  return new Set(names.flatMap((n) => own(TOOLSETS, n)!));
}
