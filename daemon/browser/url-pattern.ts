/**
 * The one URL pattern rule of routes, capture, HAR and API maps.
 */
export type UrlMatcher = (url: string) => boolean;

type Token = { lit: string } | 'star';

/**
 * The URL rule shared by routes, capture and HAR: a pattern holding `*` is a glob over the whole URL where each
 * `*` (or `**`, the same) matches any run of characters, `/` included, so `*` alone matches every URL and
 * `*\/api/*` any host's /api/ and everything under it; anything else is a case-sensitive substring. Globs are
 * matched by walking the set of reachable positions, never by a backtracking regular expression: a pattern
 * with many stars cannot make a long URL slow.
 */
export function urlMatcher(pattern: string): UrlMatcher {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (url) => url.includes(pattern);
  const tokens: Token[] = [];
  for (const part of pattern.split(/(\*+)/)) {
    if (!part) continue;
    if (part[0] !== '*') tokens.push({ lit: part });
    else tokens.push('star');
  }
  return (url) => globMatch(tokens, url);
}

function globMatch(tokens: Token[], url: string): boolean {
  const n = url.length;
  // reach[i]: the tokens so far can consume exactly the first i characters.
  let reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (const tok of tokens) {
    const next = new Uint8Array(n + 1);
    let any = false;
    if (tok === 'star') {
      // Anything from the first reachable position on.
      let on = false;
      for (let i = 0; i <= n; i++) {
        if (reach[i]) on = true;
        if (on) {
          next[i] = 1;
          any = true;
        }
      }
    } else {
      const len = tok.lit.length;
      for (let i = 0; i + len <= n; i++) {
        if (reach[i] && url.startsWith(tok.lit, i)) {
          next[i + len] = 1;
          any = true;
        }
      }
    }
    if (!any) return false;
    reach = next;
  }
  return reach[n] === 1;
}
