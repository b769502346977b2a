/**
 * Where a model-using call reads from: exactly one of url, urls or tab. One schema fragment and one check, so
 * browser_extract_ai and ask refuse the same bad input the same way (before any page is read or model asked).
 */
import { Type } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { TabParam } from '../../protocol/params.js';
import { checkUrl } from '../net/url-check.js';
import type { ToolContext } from '../call/context.js';

export const MODEL_MAX_URLS = 10;

const UrlParam = (description?: string) => Type.String({ minLength: 1, maxLength: 8192, ...(description ? { description } : {}) });

export const sourceParams = (urlsDescription?: string) => ({
  url: Type.Optional(UrlParam()),
  urls: Type.Optional(Type.Array(UrlParam(), { minItems: 1, maxItems: MODEL_MAX_URLS, ...(urlsDescription ? { description: urlsDescription } : {}) })),
  tab: TabParam,
});

export interface ModelSource {
  url?: string;
  urls?: string[];
  tab?: string;
}

/** validation_error unless exactly one of url, urls, tab is given. */
export function checkOneSource(args: ModelSource, example: string): void {
  const given = (['url', 'urls', 'tab'] as const).filter((k) => args[k] !== undefined);
  if (given.length === 1) return;
  throw new BrowserdError('validation_error', given.length ? `give one of url, urls, tab, not ${given.join(' and ')}` : 'give one of url, urls, tab', { next: `Pass e.g. ${example}.` });
}

/** Every address checked (scheme, private addresses) before a model session opens or a page loads. */
export function checkSourceUrls(ctx: ToolContext, args: ModelSource): void {
  for (const u of args.urls ?? (args.url !== undefined ? [args.url] : [])) checkUrl(u, ctx.env.cfg);
}
