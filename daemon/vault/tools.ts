/**
 * Vault tools: sign in and fill secrets without the agent ever seeing one. The agent names an entry and a
 * field; the daemon puts the value into the page (only on the entry's own site, only in act tabs) and answers
 * with what it did, never with the value. Codes (TOTP, inbox) are computed or read here and remembered so
 * every later result is scrubbed of them too.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from '../tools/snapshot-after.js';
import { params, RefParam, TabParam } from '../../protocol/params.js';
import { VAULT_FIELD, VAULT_NAME } from '../../storage/vault.js';
import type { ToolContext } from '../call/context.js';
import { inline, pageUrl, type ResponseBuilder } from '../call/response.js';
import { fieldValue, loginEntry } from './entry.js';
import { codeFieldRef, fillCode, fillSecret } from './fill.js';
import { ApprovalStop } from './page-guard.js';
import { LoginResult, runLogin } from './login-flow.js';
import { freshTotpCode } from './totp.js';
import { waitForOtp } from './otp/index.js';
import { signInStepStart } from './sign-in-steps.js';
import { PageText, TabIdField } from '../call/output.js';

const SiteParam = Type.String({ description: 'Vault entry, usually the host.', pattern: VAULT_NAME.source });

/*
 * Results name what was filled (entry, field, ref) and where the tab is; no schema here has a field that could
 * carry a vault value or a code.
 */
const FilledRef = Type.String({ description: 'The field the value went into.' });
const EntryName = Type.String({ description: 'The vault entry used.' });
const TabAt = { tab: TabIdField, url: PageText({ description: 'Where the tab is after the fill (and any submit).' }) };

const SubmitParam = Type.Optional(Type.Boolean({ description: 'Default true.' }));

/** A multi-step handler that stopped for the user's approval reports it like the pipeline would. */
async function approvalAware(out: ResponseBuilder, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (e instanceof ApprovalStop) {
      out.needsApproval(e.approval);
      return;
    }
    throw e;
  }
}

function describeSubmit(how: 'clicked' | 'enter' | 'none'): string {
  return how === 'clicked' ? ' and sent the form (submit button)' : how === 'enter' ? ' and sent the form (Enter)' : '';
}

async function reportTab(ctx: ToolContext, tabId: string | undefined, out: ResponseBuilder) {
  const tab = await ctx.tab(tabId);
  out.set('tab', tab.id).set('url', tab.url).text(`Tab ${tab.id} is at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
}

export const vaultTools = [
  defineTool({
    name: 'browser_vault_list',
    title: 'List vault entries',
    description: "The user's vault entries (names, kinds, fields, login URLs), never values.",
    input: params({}),
    output: Type.Object({
      entries: Type.Array(
        Type.Object({
          name: Type.String(),
          kind: Type.Union([Type.Literal('login'), Type.Literal('otp_inbox')]),
          fields: Type.Array(Type.String(), { description: 'Field names only (password, username, totp ...), never values.' }),
          loginUrl: Type.Optional(Type.String()),
          inbox: Type.Optional(Type.Union([Type.Literal('imap'), Type.Literal('sms')], { description: 'otp_inbox entries: how codes arrive.' })),
        }),
      ),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, _args, out) {
      ctx.env.vault.requireOpen();
      const entries = ctx.env.vault.list(ctx.user.id).map((e) => ({ name: e.name, kind: e.kind, fields: e.fields, ...(e.loginUrl ? { loginUrl: e.loginUrl } : {}), ...(e.inbox ? { inbox: e.inbox } : {}) }));
      out.set('entries', entries);
      if (!entries.length) {
        out.text('The vault is empty. Ask the user to add an entry (browserd vault set SITE FIELD).');
        return;
      }
      out.text(`${entries.length} vault entr${entries.length === 1 ? 'y' : 'ies'}:`);
      // Names and URLs are the user's own words, not page text; shown inline all the same.
      for (const e of entries) out.text(`- ${inline(e.name)} (${e.kind}${e.inbox ? `, ${e.inbox}` : ''})${e.fields.length ? `: ${e.fields.join(', ')}` : ''}${e.loginUrl ? `; login ${inline(e.loginUrl)}` : ''}`);
    },
  }),
  defineTool({
    name: 'browser_fill_secret',
    title: 'Fill a secret from the vault',
    description: "Fills a field (ref) with a vault value (site + field) without you seeing it.",
    input: params({
      ref: RefParam(),
      site: SiteParam,
      field: Type.String({ description: '"password", "username", ...', pattern: VAULT_FIELD.source }),
      tab: TabParam,
    }),
    output: Type.Object({
      ...TabAt,
      filled: Type.Object({ ref: FilledRef, site: EntryName, field: Type.String({ description: "The entry's field that was filled (its name, not its value)." }) }),
    }),
    effect: 'write',
    openWorld: true,
    touches: [{ kind: 'fill', ref: 'ref' }],
    async handle(ctx, args, out) {
      const entry = loginEntry(ctx, args.site);
      const value = fieldValue(entry, args.field);
      const tab = await ctx.tab(args.tab);
      // The pipeline gated this fill as declared (touches); fillSecret adds the checks only secrets need.
      await fillSecret(ctx, tab, entry, args.ref, value, out, { gated: true });
      out.set('tab', tab.id).set('filled', { ref: args.ref, site: entry.info.name, field: args.field });
      out.text(`Filled ${args.field} of ${entry.info.name} into ${args.ref}.`);
      await reportTab(ctx, args.tab, out);
    },
  }),
  defineTool({
    name: 'browser_fill_totp',
    title: 'Fill an authenticator code',
    description: "Fills the current TOTP code of a vault entry into the code field and sends the form unless submit is false.",
    input: params({
      site: SiteParam,
      ref: Type.Optional(RefParam('Default: found on the page.')),
      submit: SubmitParam,
      tab: TabParam,
    }),
    output: Type.Object({
      ...TabAt,
      filled: Type.Object({ ref: FilledRef, site: EntryName, field: Type.Literal('totp') }),
    }),
    effect: 'write',
    async handle(ctx, args, out) {
      const entry = loginEntry(ctx, args.site);
      const secret = fieldValue(entry, 'totp');
      const tab = await ctx.tab(args.tab);
      await approvalAware(out, async () => {
        const ref = await codeFieldRef(tab, args.ref);
        const how = await fillCode(ctx, tab, entry, ref, await freshTotpCode(secret, ctx.signal), args.submit !== false, out);
        out.set('filled', { ref, site: entry.info.name, field: 'totp' });
        out.text(`Filled the authenticator code of ${entry.info.name} into ${ref}${describeSubmit(how)}.`);
        await reportTab(ctx, args.tab, out);
      });
    },
  }),
  defineTool({
    name: 'browser_fill_otp',
    title: 'Fill a code from the inbox',
    description: "Fills the code from the newest message about the site in the user's OTP inbox (e-mail or SMS) since the sign-in began, waiting for one, and sends the form unless submit is false. Without an inbox, ask a person.",
    input: params({
      site: SiteParam,
      ref: Type.Optional(RefParam('Default: found on the page.')),
      from: Type.Optional(Type.String({ description: 'Sender contains.', minLength: 1, maxLength: 200 })),
      inbox: Type.Optional(Type.String({ pattern: VAULT_NAME.source })),
      timeoutS: Type.Optional(Type.Integer({ description: 'Default 60.', minimum: 1, maximum: 60 })),
      sinceSeconds: Type.Optional(Type.Integer({ description: 'Also messages this old. Default: since the sign-in began.', minimum: 1, maximum: 600 })),
      submit: SubmitParam,
      tab: TabParam,
    }),
    output: Type.Object({
      tab: TabIdField,
      url: Type.Optional(PageText({ description: 'Where the tab is after the fill (and any submit).' })),
      outcome: Type.Optional(Type.Literal('person_needed', { description: 'The user has no OTP inbox (of that name): nothing was filled; a person must give the code.' })),
      filled: Type.Optional(
        Type.Object({
          ref: FilledRef,
          site: EntryName,
          inbox: Type.String({ description: 'The otp_inbox entry the message came from.' }),
          via: Type.Union([Type.Literal('imap'), Type.Literal('sms')]),
        }),
      ),
    }),
    effect: 'write',
    async handle(ctx, args, out) {
      const called = Date.now();
      const entry = loginEntry(ctx, args.site);
      const tab = await ctx.tab(args.tab);
      // A code sent for the step that started this sign-in may be older than this call (sign-in-steps.ts).
      const stepStart = signInStepStart(ctx.user.id, tab.id, entry.info.name, called) ?? called;
      const since = new Date(args.sinceSeconds !== undefined ? called - args.sinceSeconds * 1000 : Math.min(called, stepStart));
      await approvalAware(out, async () => {
        // Find the field (and refuse a wrong tab or site) before waiting up to a minute for a message.
        const ref = await codeFieldRef(tab, args.ref);
        const inboxes = ctx.env.vault.list(ctx.user.id).filter((e) => e.kind === 'otp_inbox' && (!args.inbox || e.name === args.inbox));
        if (!inboxes.length) {
          out.set('tab', tab.id).set('outcome', 'person_needed');
          out.text(
            args.inbox
              ? `There is no OTP inbox named ${args.inbox}, so no code can be read. A person must be asked for the code: ask the user, or hand them the browser with browser_handoff.`
              : 'The user has no OTP inbox in the vault, so no code can be read. A person must be asked for the code: ask the user, or hand them the browser with browser_handoff.',
          );
          return;
        }
        const found = await waitForOtp(ctx.env, ctx.user.id, { site: entry.info.name, from: args.from, inbox: args.inbox, since, timeoutMs: (args.timeoutS ?? 60) * 1000, signal: ctx.signal });
        const how = await fillCode(ctx, tab, entry, ref, found.code, args.submit !== false, out);
        out.set('filled', { ref, site: entry.info.name, inbox: found.inbox, via: found.via });
        out.text(`Filled the code from inbox ${found.inbox} (${found.via}) into ${ref}${describeSubmit(how)}.`);
        await reportTab(ctx, args.tab, out);
      });
    },
  }),
  defineTool({
    name: 'browser_login',
    title: 'Sign in with the vault',
    description:
      "Signs in with a vault entry in an act tab (a new one if none is open): opens the login URL, fills and sends user name and password, answers a code prompt (TOTP, OTP inbox, else a person). Reports a CAPTCHA or wrong password instead of retrying.",
    input: params({
      site: SiteParam,
      loginUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(LoginResult),
    effect: 'write',
    async handle(ctx, args, out) {
      // With no tab at all, runLogin opens an act tab once the entry and its login URL have passed.
      const tab = args.tab !== undefined || ctx.defaultTabId() ? await ctx.tab(args.tab) : undefined;
      await approvalAware(out, () => runLogin(ctx, tab, args, out));
    },
  }),
];
