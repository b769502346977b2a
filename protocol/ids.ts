/** Identifier formats shared by the daemon, the CLI and clients. */

/** A tab id: `t12`, or `<profile>/t12` for a tab of a named profile. */
export const TAB_ID = /^(?:([a-z0-9][a-z0-9_-]{0,39})\/)?t([1-9][0-9]{0,8})$/;
/** An element ref: `e12`, or `f2:e12` inside frame 2. */
export const REF = /^(?:f([1-9][0-9]{0,4}):)?e([1-9][0-9]{0,8})$/;
/** Names of contexts and profiles. */
export const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** A hand-off id: `ho_` and 16 hex digits. */
export const HANDOFF_ID = /^ho_[0-9a-f]{16}$/;
/** User names. */
export const USER_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export function parseTabId(id: string): { profile?: string; n: number } | undefined {
  const m = TAB_ID.exec(id);
  if (!m) return undefined;
  return { profile: m[1], n: Number(m[2]) };
}

export function formatTabId(n: number, profile?: string): string {
  return profile ? `${profile}/t${n}` : `t${n}`;
}

/** A crawl run: `crawl_` and 16 hex digits. */
export const CRAWL_ID = /^crawl_[0-9a-f]{16}$/;
/** A response cache's name: letters, digits, ".", "_", "-" (1-64). */
export const CACHE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** An API map: `api_` and 16 hex digits. */
export const API_MAP_ID = /^api_[0-9a-f]{16}$/;
/** A learned extractor: `ext_` and 16 hex digits. */
export const EXTRACTOR_ID = /^ext_[0-9a-f]{16}$/;
/** A webhook receiver: `wh_` and 16 hex digits. */
export const WEBHOOK_ID = /^wh_[0-9a-f]{16}$/;
