/**
 * What a page is for, judged from its visible HTML: a sign-in page, a search, a listing, an article, a form, or
 * the home page; with the forms it has (never filled or sent: an explore only reads).
 */
import { collapseWs, eachElement, parseHtml, textContent, type HElement } from '../read/html-tree.js';
import { absoluteHttp } from '../read/metadata.js';

export type PageKind = 'home' | 'login' | 'search' | 'listing' | 'article' | 'form' | 'other';

export interface FormInfo {
  action: string;
  method: 'get' | 'post';
  fields: { name: string; type: string }[];
  role?: string;
}

export interface PageFacts {
  kind: PageKind;
  title?: string;
  forms: FormInfo[];
  /** For a search page: the query parameter a GET search form sends. */
  searchParam?: string;
}

const SEARCH_NAMES = /^(q|query|search|s|keywords?|term|k)$/i;

function formsOf(root: HElement | { children: HElement['children'] }, base: string): (FormInfo & { el: HElement })[] {
  const out: (FormInfo & { el: HElement })[] = [];
  eachElement(root as HElement, (el) => {
    if (el.name !== 'form') return;
    const fields: { name: string; type: string }[] = [];
    eachElement(el, (f) => {
      if (f.name === 'input' || f.name === 'select' || f.name === 'textarea') {
        const type = f.name === 'input' ? (f.attribs.type ?? 'text').toLowerCase() : f.name;
        if (type !== 'hidden' && type !== 'submit' && type !== 'button') fields.push({ name: f.attribs.name ?? f.attribs.id ?? '', type });
      }
    });
    const method = (el.attribs.method ?? 'get').toLowerCase() === 'post' ? 'post' : 'get';
    out.push({ el, action: absoluteHttp(el.attribs.action || base, base) ?? base, method, fields, ...(el.attribs.role ? { role: el.attribs.role } : {}) });
    return false;
  });
  return out;
}

/** Same tag and class repeated at least 5 times under one parent, each with a link: a list of things. */
function hasListing(root: HElement | { children: HElement['children'] }): boolean {
  let found = false;
  eachElement(root as HElement, (el) => {
    if (found) return false;
    const groups = new Map<string, number>();
    for (const c of el.children) {
      if (c.type !== 'tag') continue;
      const kid = c as HElement;
      let linked = false;
      eachElement(kid, (x) => {
        if (x.name === 'a' && x.attribs.href) linked = true;
        return !linked;
      });
      if (!linked && kid.name !== 'a') continue;
      const key = `${kid.name}.${kid.attribs.class ?? ''}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    if ([...groups.values()].some((n) => n >= 5)) found = true;
  });
  return found;
}

export function pageFacts(html: string, url: string): PageFacts {
  const doc = parseHtml(html);
  let title: string | undefined;
  let article = false;
  let headings = 0;
  eachElement(doc, (el) => {
    if (el.name === 'title' && !title) title = collapseWs(textContent(el)).trim() || undefined;
    if (el.name === 'article') article = true;
    if (el.name === 'h2' || el.name === 'h3') headings++;
    return el.name !== 'script' && el.name !== 'style';
  });
  const forms = formsOf(doc, url);
  const info = forms.map(({ el: _el, ...f }) => f);
  const passwords = forms.some((f) => f.fields.some((x) => x.type === 'password'));
  const search = forms.find((f) => f.role === 'search' || f.fields.some((x) => x.type === 'search') || (f.method === 'get' && f.fields.filter((x) => x.type === 'text' || x.type === 'search').length === 1 && f.fields.some((x) => SEARCH_NAMES.test(x.name))));
  const textChars = collapseWs(textContent(doc)).length;
  // A home page usually lists its sections: it is the home page first, a listing only elsewhere.
  const kind: PageKind = passwords
    ? 'login'
    : search
      ? 'search'
      : new URL(url).pathname === '/'
        ? 'home'
        : hasListing(doc)
        ? 'listing'
        : article || (headings >= 2 && textChars > 1200)
          ? 'article'
          : forms.some((f) => f.fields.length >= 2)
            ? 'form'
            : new URL(url).pathname === '/'
              ? 'home'
              : 'other';
  const searchParam = search?.method === 'get' ? search.fields.find((x) => x.type === 'search' || SEARCH_NAMES.test(x.name))?.name : undefined;
  return { kind, ...(title ? { title } : {}), forms: info, ...(kind === 'search' && searchParam ? { searchParam } : {}) };
}
