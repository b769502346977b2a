/**
 * uWS's route patterns for the node:http server: `/live/:token/ws` (a `:name` part is one path segment,
 * given back in order) and `/cdp/*` (a trailing `*` takes the rest of the path).
 */
export function matchPattern(pattern: string, path: string): string[] | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  const params: string[] = [];
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (w === '*' && i === want.length - 1) return params;
    const g = got[i];
    if (g === undefined) return undefined;
    if (w.startsWith(':')) {
      if (!g) return undefined;
      params.push(g);
    } else if (w !== g) return undefined;
  }
  return got.length === want.length ? params : undefined;
}
