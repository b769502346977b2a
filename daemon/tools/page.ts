/** Whole-page tools: evaluate, viewport, allow_confirm, pdf. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { EVALUATE_DEFAULT_TIMEOUT_MS, evaluateScript } from '../browser/evaluate.js';
import { printPdf } from '../browser/capture.js';
import { TabIdField } from '../call/output.js';
import { admitAgentScript } from '../secrets/secret-documents.js';
import { own } from '../../protocol/own.js';

export const EVALUATE_MAX_CHARS = 12000;

const PAPER: Record<string, { w: number; h: number }> = {
  a4: { w: 8.27, h: 11.69 }, letter: { w: 8.5, h: 11 }, legal: { w: 8.5, h: 14 }, a3: { w: 11.69, h: 16.54 }, a5: { w: 5.83, h: 8.27 }, tabloid: { w: 11, h: 17 },
};

export const pageTools = [
  defineTool({
    name: 'browser_evaluate',
    title: 'Run JavaScript',
    description:
      'Runs a JavaScript expression or IIFE in the page; returns its value as JSON (a string as is), cut at 12,000 characters, a promise awaited. A throw or a non-JSON value is action_failed. Sensitive (policy applies); refused on a site where a page holds a vault value.',
    input: params({
      js: Type.String({ minLength: 1, maxLength: 100000 }),
      timeoutMs: Type.Optional(Type.Integer({ description: `Default ${EVALUATE_DEFAULT_TIMEOUT_MS}.`, minimum: 100, maximum: 120000 })),
      tab: TabParam,
    }),
    // The value itself is page text in the fenced text block (a string as it is, anything else as JSON).
    output: Type.Object({
      tab: TabIdField,
      truncated: Type.Boolean({ description: `The value was cut at ${EVALUATE_MAX_CHARS} characters.` }),
      type: Type.String({ description: 'The JavaScript type of the value as Chromium reports it: string, number, boolean, object, undefined, bigint...' }),
    }),
    effect: 'sensitive',
    touches: [{ kind: 'script' }],
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      // Never where a filled vault value lives, or could be reached from: any encoding of it would come out.
      const guard = await admitAgentScript(tab, (await ctx.browser(tab.record.profile)).tabs.values(), ctx.env.agentStorage);
      const r = await evaluateScript(tab, guard + args.js, args.timeoutMs);
      let text = r.text;
      const cut = text.length > EVALUATE_MAX_CHARS;
      if (cut) text = text.slice(0, EVALUATE_MAX_CHARS);
      out.set('tab', tab.id).set('truncated', cut).set('type', r.type);
      out.text(`Result of the script in ${tab.id}${cut ? ` (cut at ${EVALUATE_MAX_CHARS} characters)` : ''}:`);
      out.page(`script result in ${tab.id}`, text);
    },
  }),
  defineTool({
    name: 'browser_viewport',
    title: 'Set the viewport',
    description: 'Sets the tab\'s viewport size and scale, kept for the tab.',
    input: params({
      width: Type.Integer({ minimum: 200, maximum: 3840 }),
      height: Type.Integer({ minimum: 200, maximum: 2160 }),
      deviceScaleFactor: Type.Optional(Type.Number({ description: 'Default 1.', minimum: 0.5, maximum: 4 })),
      tab: TabParam,
    }),
    output: Type.Object({
      tab: TabIdField,
      viewport: Type.Object({ width: Type.Integer(), height: Type.Integer(), deviceScaleFactor: Type.Number() }, { description: 'The viewport the tab now has (CSS pixels), kept for it.' }),
    }),
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    openWorld: false,
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const v = { width: args.width, height: args.height, deviceScaleFactor: args.deviceScaleFactor ?? 1 };
      await tab.applyViewport(v);
      tab.record.viewport = v;
      await ctx.env.tabs.put(tab.record);
      out.set('tab', tab.id).set('viewport', v).text(`Viewport of ${tab.id} is ${v.width}x${v.height} at scale ${v.deviceScaleFactor}.`);
    },
  }),
  defineTool({
    name: 'browser_allow_confirm',
    title: 'Allow the next confirm',
    description: 'Answers yes to the next confirm()/prompt() only (dialogs get no by default). Call it just before the click that opens one.',
    input: params({ tab: TabParam }),
    output: Type.Object({ tab: TabIdField }),
    effect: 'sensitive',
    openWorld: false,
    touches: [{ kind: 'confirm' }],
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      tab.allowNextConfirm();
      out.set('tab', tab.id).text(`The next confirm()/prompt() in ${tab.id} will be answered YES; later ones NO again.`);
    },
  }),
  defineTool({
    name: 'browser_pdf',
    title: 'Save as PDF',
    description: "Prints the page to a PDF in the user's files; returns its name and URL.",
    input: params({
      paper: Type.Optional(StringEnum(['a4', 'letter', 'legal', 'a3', 'a5', 'tabloid'] as const)),
      landscape: Type.Optional(Type.Boolean({ description: 'Default false.' })),
      background: Type.Optional(Type.Boolean({ description: 'Default true.' })),
      scale: Type.Optional(Type.Number({ description: 'Default 1.', minimum: 0.1, maximum: 2 })),
      marginMm: Type.Optional(Type.Number({ description: 'Default 10.', minimum: 0, maximum: 100 })),
      pageRanges: Type.Optional(Type.String({ description: 'e.g. "1-3, 5". Default all.', pattern: '^\\s*\\d+(\\s*-\\s*\\d+)?(\\s*,\\s*\\d+(\\s*-\\s*\\d+)?)*\\s*$' })),
      // The file store's own rule (storage/files.ts: no "..", no leading dot or separator), so a name the schema lets
      // through is one the store takes.
      name: Type.Optional(Type.String({ description: 'File name ending in .pdf. Default from host and time.', pattern: '^(?!.*\\.\\.)[A-Za-z0-9_][A-Za-z0-9 ._-]{0,195}\\.pdf$' })),
      tab: TabParam,
    }),
    output: Type.Object({
      tab: TabIdField,
      file: Type.Object(
        {
          name: Type.String(),
          size: Type.Integer({ description: 'Bytes.' }),
          mimeType: Type.String(),
          modifiedAt: Type.String({ description: 'When it was written (ISO 8601).' }),
          url: Type.String({ description: 'Path to fetch it from with your bearer token: GET /v1/files/<name>.' }),
        },
        { description: "The PDF as stored in the user's files." },
      ),
    }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    openWorld: false,
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const paper = own(PAPER, args.paper ?? 'a4') ?? PAPER.a4!;
      const m = (args.marginMm ?? 10) / 25.4;
      if (args.name !== undefined && !ctx.env.files.validName(args.name)) {
        throw new BrowserdError('validation_error', `"${args.name}" is not a file name the file store takes`, { next: 'Use letters, digits, space, dot, dash and underscore, no "..", ending in .pdf (e.g. "report.pdf").' });
      }
      const pdf = await printPdf(tab, {
        landscape: !!args.landscape,
        printBackground: args.background ?? true,
        scale: args.scale ?? 1,
        paperWidth: paper.w,
        paperHeight: paper.h,
        margin: m,
        pageRanges: args.pageRanges ?? '',
      });
      let host = 'page';
      try { host = new URL(tab.url).hostname || 'page'; } catch { /* about:blank */ }
      // Hosts may hold ".." only as a mistake; squeeze runs of dots so the default name is always one the store takes.
      const name = args.name ?? `${host.replace(/[^A-Za-z0-9.-]/g, '_').replace(/\.{2,}/g, '.')}-${new Date().toISOString().replace(/[:.]/g, '-')}.pdf`;
      const info = ctx.env.files.write(ctx.user.id, name, pdf);
      const url = `/v1/files/${encodeURIComponent(name)}`;
      out.set('tab', tab.id).set('file', { ...info, url });
      out.text(`Saved ${name} (${info.size} bytes). Fetch it with GET ${url} and your bearer token.`);
    },
  }),
];
