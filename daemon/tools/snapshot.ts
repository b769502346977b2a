/** Seeing the page: snapshot with refs, screenshot. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params, RefParam, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { Tab } from '../browser/tab.js';
import { screenshot, type Clip } from '../browser/capture.js';
import { pageUrl, urlLine, type ResponseBuilder } from '../call/response.js';
import { TabIdField, UrlField } from '../call/output.js';

/**
 * The fields writeSnapshot sets. The outline itself is page text in the fenced text block, not a field: a
 * client that wants it reads the text.
 */
export const SnapshotOutput = Type.Object({
  tab: TabIdField,
  url: UrlField,
  refCount: Type.Integer({ description: 'How many element refs the snapshot hands out.' }),
});

/** Writes a snapshot of the tab into the response (also used by tools that return one after acting). */
export async function writeSnapshot(tab: Tab, out: ResponseBuilder, opts: { includeHidden?: boolean; markNewSince?: boolean } = {}) {
  const snap = await tab.call('snapshot', { includeHidden: opts.includeHidden, markNewSince: opts.markNewSince });
  out.set('tab', tab.id).set('url', snap.url).set('refCount', snap.refCount);
  // One short line: the snapshot is the most frequent result, and every character of it is paid for by the model.
  out.text(`${tab.id} (${tab.mode}) ${pageUrl(snap.url)}${opts.markNewSince ? ' — lines marked * are new' : ''}`);
  // The whole address (when the line shows it cut) rides in the snapshot's own fence: one fence, not two.
  out.page(`snapshot of ${tab.id}`, `${urlLine(snap.url)}title: ${snap.title}\n${snap.text}`);
  if (snap.skippedFrames.length) out.text(`Cross-origin frames not read: ${snap.skippedFrames.length}.`);
  return snap;
}

export const snapshotTools = [
  defineTool({
    name: 'browser_snapshot',
    title: 'Snapshot the page',
    description:
      'The page as a compact outline (role, name, value, state) with refs for interactive elements; shadow roots and frames (cross-origin too) in place.',
    input: params({ tab: TabParam, includeHidden: IncludeHiddenParam }),
    output: SnapshotOutput,
    effect: 'read',
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      await writeSnapshot(tab, out, { includeHidden: args.includeHidden });
    },
  }),
  defineTool({
    name: 'browser_screenshot',
    title: 'Screenshot',
    description: 'An image of the viewport, the whole page, or one element (ref).',
    input: params({
      tab: TabParam,
      fullPage: Type.Optional(Type.Boolean()),
      ref: Type.Optional(RefParam()),
      format: Type.Optional(StringEnum(['png', 'jpeg'])),
      quality: Type.Optional(Type.Integer({ description: 'Default 80.', minimum: 1, maximum: 100 })),
    }),
    output: Type.Object({ tab: TabIdField, url: UrlField }),
    effect: 'read',
    async handle(ctx, args, out) {
      if (args.ref && args.fullPage) throw new BrowserdError('validation_error', 'give ref or fullPage, not both', { next: 'Pick one.' });
      const tab = await ctx.tab(args.tab);
      const format = args.format ?? 'png';
      let clip: Clip | undefined;
      if (args.ref) {
        clip = await tab.call('rectFor', args.ref);
        if (clip.width < 1 || clip.height < 1) throw new BrowserdError('action_failed', `${args.ref} has no visible size`, { next: 'Screenshot the page instead.' });
      }
      const data = await screenshot(tab, { format, quality: args.quality, fullPage: args.fullPage, clip });
      out.set('tab', tab.id).set('url', tab.url);
      out.image(data, `image/${format}`);
      out.text(`Screenshot of ${tab.id}${args.fullPage ? ' (full page)' : ''}.`);
    },
  }),
];
