/** Navigation tools: navigate, history, wait. */
import { setTimeout as delay } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from './snapshot-after.js';
import { params, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkUrl } from '../net/url-check.js';
import { goHistory, reload } from '../browser/history.js';
import { pageUrl } from '../call/response.js';
import { TabIdField, UrlField } from '../call/output.js';
import { cleanBeforeOpening } from '../secrets/site-storage.js';

export const navigationTools = [
  defineTool({
    name: 'browser_navigate',
    title: 'Go to a URL',
    description: 'Loads a URL and waits for the page to settle.',
    input: params({
      url: Type.String({ minLength: 1, maxLength: 8192 }),
      timeoutMs: Type.Optional(Type.Integer({ description: 'Default 30000.', minimum: 1000, maximum: 120000 })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(Type.Object({ tab: TabIdField, url: UrlField })),
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    async handle(ctx, args, out) {
      const url = checkUrl(args.url, ctx.env.cfg);
      const tab = await ctx.tab(args.tab);
      // A site whose own storage agent code may have written is cleaned first when nothing of it is open.
      await cleanBeforeOpening(ctx.env.agentStorage, tab, url, (await ctx.browser(tab.record.profile)).tabs.values());
      await tab.navigate(url, args.timeoutMs);
      out.set('tab', tab.id).set('url', tab.url).text(`Tab ${tab.id} is at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
      const title = await tab.title();
      if (title) out.page(`title of ${tab.id}`, title);
    },
  }),
  defineTool({
    name: 'browser_history',
    title: 'Back, forward or reload',
    description: 'Back, forward or reload, then waits for the page to settle.',
    input: params({ action: StringEnum(['back', 'forward', 'reload']), snapshot: SnapshotAfterParam, tab: TabParam }),
    output: withSnapshotAfter(Type.Object({ tab: TabIdField, url: UrlField })),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      if (args.action === 'reload') await reload(tab);
      else await goHistory(tab, args.action);
      await tab.settle();
      out.set('tab', tab.id).set('url', tab.url).text(`Tab ${tab.id} is at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
    },
  }),
  defineTool({
    name: 'browser_wait',
    title: 'Wait for text, an element or time',
    description: 'Waits until text or a CSS selector is visible (or gone), or for timeMs.',
    input: params({
      text: Type.Optional(Type.String({ description: 'Case-insensitive.', minLength: 1, maxLength: 1000 })),
      selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      gone: Type.Optional(Type.Boolean({ description: 'Wait until it is not visible.' })),
      timeMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 60000 })),
      timeoutMs: Type.Optional(Type.Integer({ description: 'Default 10000.', minimum: 100, maximum: 60000, default: 10000 })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    // A plain wait for time names no tab: only a wait on the page says which tab it watched.
    output: withSnapshotAfter(Type.Object({ tab: Type.Optional(TabIdField) })),
    effect: 'read',
    async handle(ctx, args, out) {
      const given = [args.text, args.selector, args.timeMs].filter((v) => v !== undefined).length;
      if (given !== 1) throw new BrowserdError('validation_error', 'browser_wait takes exactly one of text, selector or timeMs', { next: 'Pass one of them.' });
      const tab = await ctx.tab(args.tab);
      if (args.timeMs !== undefined) {
        // Ends with the call: a caller that gives up (MCP cancel, closed request) does not leave it running.
        // It also ends with the tab: a browser killed meanwhile answers browser_crashed at once, not after timeMs.
        const gone = tab.goneSignal();
        try {
          const waited = delay(args.timeMs, undefined, { signal: AbortSignal.any([ctx.signal, gone.signal]) }).catch((e) => {
            ctx.checkCancelled();
            // The session's CdpError (closed or crashed), which dispatch answers as browser_crashed.
            throw gone.signal.reason ?? e;
          });
          await ctx.progress.during(waited, args.timeMs);
        } finally {
          gone.dispose();
        }
        out.text(`Waited ${args.timeMs} ms.`);
        return;
      }
      const started = Date.now();
      const deadline = started + (args.timeoutMs ?? 10000);
      const what = args.text !== undefined ? `text "${args.text}"` : `selector ${args.selector}`;
      const totalS = Math.ceil((args.timeoutMs ?? 10000) / 1000);
      for (;;) {
        if (ctx.signal.aborted) throw new BrowserdError('timeout', 'cancelled', { next: 'Retry.' });
        // Seconds waited so far, for a client showing a bar (nothing is sent unless it asked).
        ctx.progress.report(Math.min(totalS, Math.floor((Date.now() - started) / 1000)), totalS, 'seconds waited');
        const ok = await tab.call('check', { text: args.text, selector: args.selector, gone: args.gone }).catch((e) => {
          // A bad selector stays bad; anything else (the page navigating under us) is worth another look,
          // unless the tab or its browser is gone: polling on would only run the clock out.
          if (e instanceof BrowserdError && e.code === 'validation_error') throw e;
          if (tab.closed || tab.crashed) throw e;
          return false;
        });
        if (ok) break;
        if (Date.now() > deadline) throw new BrowserdError('timeout', `${what} did not ${args.gone ? 'go away' : 'appear'} within ${args.timeoutMs ?? 10000} ms`, { next: 'Take a browser_snapshot to see the page, or wait longer.' });
        await new Promise((r) => setTimeout(r, 100));
      }
      out.set('tab', tab.id).text(`${what} ${args.gone ? 'is gone' : 'is visible'} in ${tab.id}.`);
    },
  }),
];
