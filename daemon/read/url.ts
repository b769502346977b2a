// Turning href/src attributes into absolute URLs a Markdown reader can follow
// without the page at hand.

/** Returns an absolute URL, or null when the target is not something to link to. */
export type Resolver = (href: string | undefined) => string | null;

// Script and data targets carry code or megabytes of base64, never a place to go.
const NOT_A_PLACE = /^(javascript|vbscript|data):/i;

/**
 * `pageUrl` is where the HTML came from; `baseHref` is the page's own <base href>
 * (itself relative to the page), which browsers honour before the page URL.
 */
export function makeResolver(pageUrl: string, baseHref?: string): Resolver {
  let base: URL | null = null;
  try {
    base = new URL(pageUrl);
  } catch {
    base = null;
  }
  if (baseHref) {
    try {
      base = base ? new URL(baseHref.trim(), base) : new URL(baseHref.trim());
    } catch {
      // A broken <base> is ignored, as browsers do.
    }
  }
  return (raw) => {
    if (raw == null) return null;
    // Browsers strip leading/trailing whitespace and drop tabs/newlines inside URLs.
    const href = raw.trim().replace(/[\t\n\r]/g, '');
    if (!href || NOT_A_PLACE.test(href)) return null;
    let abs: string;
    try {
      abs = base ? new URL(href, base).href : new URL(href).href;
    } catch {
      // Unresolvable (no usable base): keep what the page said rather than lose the link.
      abs = href;
    }
    if (NOT_A_PLACE.test(abs)) return null;
    return markdownSafeUrl(abs);
  };
}

/** Characters that would end or break a Markdown link destination are percent-encoded. */
export function markdownSafeUrl(u: string): string {
  return u.replace(/[ ()<>]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}
