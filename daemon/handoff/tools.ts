/** Hand-off tools: ask a person to do one step, wait for them, extend, resolve, list. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { HANDOFF_ID } from '../../protocol/ids.js';
import { type ResponseBuilder } from '../call/response.js';
import { PageText } from '../call/output.js';
import { EXPIRES_DEFAULT_S, EXPIRES_MAX_S, EXPIRES_MIN_S, MESSAGE_MAX, NOTE_MAX, type HandoffView } from './service.js';
import { HANDOFFS } from './service.js';

const IdParam = Type.String({ pattern: HANDOFF_ID.source });
const ExpiresInS = (description?: string) => Type.Integer({ ...(description ? { description } : {}), minimum: EXPIRES_MIN_S, maximum: EXPIRES_MAX_S });
const WAIT_MAX_S = 60;
const WAIT_DEFAULT_S = 50;

/** A hand-off as results show it (service.ts HandoffView): its state now, never the page token. */
export const HandoffViewSchema = Type.Object({
  id: Type.String({ description: 'ho_ and 16 hex digits.' }),
  reason: Type.Union([Type.Literal('captcha'), Type.Literal('two_factor'), Type.Literal('needs_approval'), Type.Literal('login'), Type.Literal('other')]),
  // A task's model writes hand-off messages and notes from the pages it read, so they come fenced like page text.
  message: PageText({ description: 'What the person was asked to do (the words of the agent or task model that asked).' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('expired')]),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  expiresInS: Type.Optional(Type.Integer({ description: 'Seconds left, while open.' })),
  capAt: Type.String({ description: 'The latest expiresAt any extension can reach.' }),
  note: Type.Optional(PageText({ description: 'What the agent noted when it resolved the hand-off.' })),
  tab: Type.Optional(Type.String({ description: 'The tab the person is shown.' })),
  resolvedBy: Type.Optional(Type.Union([Type.Literal('person'), Type.Literal('agent')])),
  resolvedAt: Type.Optional(Type.String()),
});

/** The answer of the tools that look at or change one hand-off. */
const OneHandoff = Type.Object({ handoff: HandoffViewSchema });

/**
 * One line about a hand-off's state, in our words. The message and note are not ours: a task's model writes
 * them from the pages it read (and any agent may quote a page), so they follow fenced, never on this line.
 */
function describe(v: HandoffView): string {
  if (v.status === 'open') return `${v.id} is open: the person has not pressed Done yet; it expires at ${v.expiresAt} (in ${v.expiresInS} s).`;
  if (v.status === 'expired') return `${v.id} expired at ${v.expiresAt} without the person pressing Done.`;
  const by = v.resolvedBy === 'person' ? 'the person pressed Done' : 'resolved by the agent';
  return `${v.id} is resolved (${by}) at ${v.resolvedAt}.${v.note ? ' It has a note (fenced below).' : ''}`;
}

function show(out: ResponseBuilder, v: HandoffView) {
  out.set('handoff', v);
  out.text(describe(v));
  if (v.note) out.page(`note of ${v.id}`, v.note);
}

export const handoffTools = [
  defineTool({
    name: 'browser_handoff',
    title: 'Hand off to a person',
    description:
      'Asks a person to do a step you cannot (CAPTCHA, 2FA, approval, login): answers a link to a page with your message, the live browser and a Done button; give it to them, then browser_handoff_wait.',
    input: params({
      reason: Type.Optional(StringEnum(['captcha', 'two_factor', 'needs_approval', 'login', 'other'], { description: 'Default other.', default: 'other' })),
      message: Type.String({ description: 'What the person should do.', minLength: 1, maxLength: MESSAGE_MAX }),
      expiresInS: Type.Optional(ExpiresInS(`Default ${EXPIRES_DEFAULT_S}.`)),
      tab: TabParam,
    }),
    output: Type.Object({
      id: Type.String({ description: 'The hand-off id, for browser_handoff_wait.' }),
      url: Type.String({ description: 'The link to give the person: a "Your turn" page with the message, the live browser and a Done button.' }),
      expiresAt: Type.String(),
      handoff: HandoffViewSchema,
    }),
    effect: 'write',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const { record, url, capped } = await ctx.service(HANDOFFS).create(ctx.user.id, { reason: args.reason ?? 'other', message: args.message, tab: args.tab, expiresInS: args.expiresInS });
      out.set('id', record.id).set('url', url).set('expiresAt', record.expiresAt).set('handoff', ctx.service(HANDOFFS).view(record));
      out.text(`Created hand-off ${record.id} (${record.reason}); it expires at ${record.expiresAt}${capped ? ` (cut to the server's cap of ${ctx.service(HANDOFFS).maxLifeS} s)` : ''}.`);
      out.text(`Link for the person: ${url}`);
      out.text('Next: give the person the link, then call browser_handoff_wait with the id.');
    },
  }),
  defineTool({
    name: 'browser_handoff_wait',
    title: 'Wait for a hand-off',
    description: 'Waits up to timeoutS for the person to press Done (or the hand-off to end). Call again while open.',
    input: params({
      id: IdParam,
      timeoutS: Type.Optional(Type.Integer({ minimum: 0, maximum: WAIT_MAX_S, default: WAIT_DEFAULT_S })),
    }),
    output: OneHandoff,
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const ms = (args.timeoutS ?? WAIT_DEFAULT_S) * 1000;
      const v = await ctx.progress.during(ctx.service(HANDOFFS).wait(ctx.user.id, args.id, ms, ctx.signal), ms, () => 'seconds waited for the person');
      show(out, v);
      if (v.status === 'open') out.text('Next: call browser_handoff_wait again while it is open.');
    },
  }),
  defineTool({
    name: 'browser_handoff_extend',
    title: 'Extend a hand-off',
    description: "An open hand-off now expires expiresInS from now (within the server's cap).",
    input: params({ id: IdParam, expiresInS: ExpiresInS() }),
    output: OneHandoff,
    effect: 'write',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const { record, capped } = await ctx.service(HANDOFFS).extend(ctx.user.id, args.id, args.expiresInS);
      show(out, ctx.service(HANDOFFS).view(record));
      if (capped) out.text(`The expiry was cut to the cap, ${record.capAt}: the hand-off cannot last longer.`);
    },
  }),
  defineTool({
    name: 'browser_handoff_resolve',
    title: 'Resolve a hand-off',
    description: 'Marks an open hand-off resolved, when the person told you they are done.',
    input: params({ id: IdParam, note: Type.Optional(Type.String({ description: 'What they said or did.', maxLength: NOTE_MAX })) }),
    output: OneHandoff,
    effect: 'write',
    hints: { idempotent: true },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      show(out, ctx.service(HANDOFFS).view(await ctx.service(HANDOFFS).resolve(ctx.user.id, args.id, 'agent', args.note)));
    },
  }),
  defineTool({
    name: 'browser_handoffs',
    title: 'Hand-offs',
    description: 'Your hand-offs, newest first, with their states.',
    input: params({ status: Type.Optional(StringEnum(['open', 'resolved', 'expired'])) }),
    output: Type.Object({ handoffs: Type.Array(HandoffViewSchema, { description: 'Newest first.' }) }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const list = ctx.service(HANDOFFS).list(ctx.user.id, args.status);
      out.set('handoffs', list);
      out.text(list.length ? list.map((v) => `${describe(v)} [${v.reason}]`).join('\n') : args.status ? `No ${args.status} hand-offs.` : 'No hand-offs.');
      if (list.length) out.page('messages and notes of these hand-offs', list.map((v) => `${v.id}: ${v.message}${v.note ? `\n${v.id} note: ${v.note}` : ''}`).join('\n'));
    },
  }),
];
