/**
 * browser_capture: keep the bodies of a tab's API calls (what its scripts fetch and post), redacted, so an agent
 * can see the data a page works with without scraping it from the rendered page. Reading them back is
 * browser_network{captured: true} (diagnostics.ts). The capture is passive: it never sends, pauses or changes a
 * request, so it is a read tool and a read tab's writes stay blocked while it runs.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { inline } from '../call/response.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { CAPTURE_LIMITS, CaptureStateSchema, captureOf, startCapture, type CaptureState } from '../traffic/capture.js';
import { TabIdField } from '../call/output.js';
import { trafficRedactor } from '../traffic/redact.js';
import { userSecretForms } from '../secrets/user-secrets.js';

const { maxBodies: B, maxBytes: M } = CAPTURE_LIMITS;

/** One line about a capture, for trusted text: the pattern is the caller's, but it is shown inline-safe anyway. */
export function describeCapture(tab: string, s: CaptureState): string {
  const methods = s.methods.length ? s.methods.join(', ') : 'every method';
  return `Capture in ${tab} (${s.running ? 'running' : 'stopped'}): urlPattern ${inline(JSON.stringify(s.urlPattern))}, ${methods}; ${s.kept} of at most ${s.maxBodies} kept, ${s.notKept} later match(es) counted and not kept; bodies cut at ${s.maxBytes} bytes.`;
}

const StartOnly = ['urlPattern', 'methods', 'maxBodies', 'maxBytes'] as const;
/** The methods a capture can be narrowed to. */
const CAPTURE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export const captureTools = [
  defineTool({
    name: 'browser_capture',
    title: 'Capture API bodies',
    description:
      "Keeps the bodies of the tab's requests matching urlPattern from now on, secrets redacted; read them with browser_network captured. Passive.",
    input: params({
      action: Type.Optional(StringEnum(['start', 'stop'], { description: 'start (default) replaces a running capture.', default: 'start' })),
      tab: TabParam,
      urlPattern: Type.Optional(Type.String({ description: '"*" all; with * a glob over the URL; else a substring.', minLength: 1, maxLength: 2000 })),
      methods: Type.Optional(Type.Array(StringEnum(CAPTURE_METHODS), { minItems: 1, maxItems: CAPTURE_METHODS.length, uniqueItems: true })),
      maxBodies: Type.Optional(Type.Integer({ description: `Default ${B.default}.`, minimum: B.min, maximum: B.max })),
      maxBytes: Type.Optional(Type.Integer({ description: `Default ${M.default}.`, minimum: M.min, maximum: M.max })),
    }),
    output: Type.Object({ tab: TabIdField, capture: CaptureStateSchema }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    openWorld: false,
    check(args) {
      if ((args.action ?? 'start') === 'start') {
        if (args.urlPattern === undefined) throw new BrowserdError('validation_error', 'urlPattern is required to start a capture', { next: 'Give urlPattern, e.g. "/api/" (substring), "*/api/*" (glob) or "*" (everything).' });
        return;
      }
      const given = StartOnly.filter((k) => args[k] !== undefined);
      if (given.length) throw new BrowserdError('validation_error', `${given.join(', ')} only go with action "start"`, { next: 'Call stop with tab alone, or start a new capture with these options.' });
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      out.set('tab', tab.id);
      if ((args.action ?? 'start') === 'stop') {
        const capture = captureOf(ctx.env, ctx.user.id, tab.id);
        if (!capture) throw new BrowserdError('not_found', `no capture was started in ${tab.id}`, { next: 'Start one with browser_capture{urlPattern}.' });
        capture.stop();
        out.set('capture', capture.state());
        out.text(`${describeCapture(tab.id, capture.state())} Read them with browser_network{captured: true}.`);
        return;
      }
      // The user's secrets as of now: the redactor hides them before anything is kept; answers scrub again on the way out.
      const redactor = trafficRedactor(userSecretForms(ctx.env, ctx.user.id));
      const capture = await startCapture(ctx.env, ctx.user.id, tab, {
        urlPattern: args.urlPattern!,
        methods: args.methods,
        maxBodies: args.maxBodies ?? B.default,
        maxBytes: args.maxBytes ?? M.default,
      }, redactor);
      out.set('capture', capture.state());
      out.text(`${describeCapture(tab.id, capture.state())} Requests from now on are captured; read them with browser_network{captured: true}.`);
    },
  }),
];
