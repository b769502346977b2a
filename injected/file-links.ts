/**
 * The files a page offers, for collect (daemon/docs/collect.ts): links (and embedded documents), images and
 * audio/video, each with an absolute URL and what the page says of it. Only what a person can see is listed:
 * a hidden link is no more the page's offer than hidden text is its content.
 */
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, cut } from './dom.js';
import { state } from './visibility.js';
import type { PageFile } from './api.js';

/** The widest candidate of a srcset ("a.jpg 480w, b.jpg 1080w" or "a.jpg 1x, b.jpg 2x"). */
function largestOfSrcset(srcset: string, base: string): string | undefined {
  let best: { url: string; size: number } | undefined;
  for (const part of srcset.split(/,\s+/)) {
    const [u, d] = part.trim().split(/\s+/);
    if (!u) continue;
    const size = d ? parseFloat(d) : 1;
    if (!best || size > best.size) best = { url: u, size: Number.isFinite(size) ? size : 1 };
  }
  return best ? absoluteUrl(best.url, base) ?? undefined : undefined;
}

export function fileLinks(opts: { limit?: number }): PageFile[] {
  const c = new Ctx(false);
  const limit = opts.limit ?? 2000;
  const out: PageFile[] = [];
  const seen = new Set<string>();
  const add = (f: PageFile) => {
    if (out.length >= limit || !/^https?:/i.test(f.url)) return;
    const key = `${f.kind} ${f.url.replace(/#.*$/, '')}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ...f, url: f.url.replace(/#.*$/, '') });
  };
  const shown = (el: Element) => !state(el, c).hidden;
  for (const el of Array.from(document.querySelectorAll('a[href], area[href], embed[src], object[data], iframe[src], img, video, audio'))) {
    if (out.length >= limit) break;
    const tag = el.localName;
    if (tag === 'a' || tag === 'area') {
      if (!shown(el)) continue;
      const url = absoluteUrl(el.getAttribute('href'), el.baseURI);
      if (url) add({ url, kind: 'link', text: cut(collapse(el.textContent ?? ''), 200), download: el.getAttribute('download') || undefined, type: el.getAttribute('type') || undefined });
    } else if (tag === 'embed' || tag === 'object' || tag === 'iframe') {
      if (!shown(el)) continue;
      const url = absoluteUrl(el.getAttribute(tag === 'object' ? 'data' : 'src'), el.baseURI);
      if (url) add({ url, kind: 'link', type: el.getAttribute('type') || undefined });
    } else if (tag === 'img') {
      if (!shown(el)) continue;
      const img = el as HTMLImageElement;
      const srcset = img.getAttribute('srcset');
      const url = (srcset && largestOfSrcset(srcset, img.baseURI)) || img.currentSrc || absoluteUrl(img.getAttribute('src'), img.baseURI);
      const r = img.getBoundingClientRect();
      if (url) add({ url, kind: 'image', text: cut(collapse(img.alt ?? ''), 200), width: Math.round(r.width), height: Math.round(r.height) });
    } else {
      if (!shown(el)) continue;
      const own = el.getAttribute('src');
      if (own) add({ url: absoluteUrl(own, el.baseURI)!, kind: 'media' });
      for (const s of Array.from(el.querySelectorAll('source[src]'))) add({ url: absoluteUrl(s.getAttribute('src'), s.baseURI)!, kind: 'media', type: s.getAttribute('type') || undefined });
    }
  }
  return out;
}
