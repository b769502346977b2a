/**
 * The one URL pattern rule of capture, HAR, routes and API maps: `*` alone matches anything; a pattern with
 * `*` is a glob over the whole URL where `**` crosses `/` and `*` does not (so `**\/api/*` matches
 * https://site.test/v1/api/items); any other pattern is a case-sensitive substring of the URL.
 */
export type UrlMatcher = (url: string) => boolean;

export function urlMatcher(pattern: string): UrlMatcher {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (url) => url.includes(pattern);
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        src += '.*';
        i++;
      } else src += '[^/]*';
    } else src += ch.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  }
  const re = new RegExp(`^${src}$`);
  return (url) => re.test(url);
}
