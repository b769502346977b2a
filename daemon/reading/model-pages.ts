/**
 * Pages read for a model: a tab as it is now, or addresses read in read-only scratch tabs, through the same
 * pipeline as browser_read (hidden text left out unless includeHidden), whole (no maxChars cut: the chunk
 * picker decides what is sent), with the user's vault values and filled codes hidden: a value filled into a
 * plain text field, or echoed by the page, must reach no provider.
 */
import { checkUrl } from '../net/url-check.js';
import type { PageText } from '../models/chunks.js';
import type { ToolContext } from '../call/context.js';
import { readTab, readUrls, type ReadOptions } from './pages.js';
import { scrubText } from '../call/redact.js';
import { userSecretForms } from '../secrets/user-secrets.js';

export type ModelPage = PageText & { ok: boolean; error?: string };

/** Markdown cap per page: far above what a model is sent, low enough that a giant page cannot exhaust memory. */
const PAGE_MAX_CHARS = 2_000_000;

export async function readPagesForModel(ctx: ToolContext, src: { url?: string; urls?: string[]; tab?: string; includeHidden?: boolean }): Promise<ModelPage[]> {
  const opts: ReadOptions = {
    includeHidden: src.includeHidden,
    maxChars: PAGE_MAX_CHARS,
    signal: ctx.signal,
    collector: { env: ctx.env, user: ctx.user.id, signal: ctx.signal },
  };
  const asPage = (r: Awaited<ReturnType<typeof readTab>>): ModelPage => ({
    url: r.url,
    title: r.title === undefined ? undefined : hideSecrets(ctx, r.title),
    markdown: hideSecrets(ctx, r.markdown ?? ''),
    ok: r.ok,
    ...(r.error ? { error: r.error } : {}),
  });
  if (src.url !== undefined || src.urls !== undefined) {
    const urls = (src.urls ?? [src.url!]).map((u) => checkUrl(u, ctx.env.cfg));
    return (await readUrls(ctx, urls, opts)).map(asPage);
  }
  const tab = await ctx.tab(src.tab);
  return [asPage(await readTab(tab, opts))];
}

/** The text with the user's vault values and filled codes hidden (every form they are written in), as results have them. */
export function hideSecrets(ctx: ToolContext, text: string): string {
  let forms: string[];
  try {
    forms = userSecretForms(ctx.env, ctx.user.id);
  } catch {
    // A vault that cannot be read filled nothing into any page; codes filled lately are still known.
    forms = userSecretForms({ vault: { values: () => [] } as never, filledCodes: ctx.env.filledCodes }, ctx.user.id);
  }
  return scrubText(text, forms);
}
