/**
 * browser_login: signs in with a vault entry the way a person would, looking at the page after each step.
 *   open the login URL -> [user name, Continue] -> user name + password, send -> then, by what the page shows:
 *   a code prompt (filled from `totp`, else from an OTP inbox, else a hand-off to a person), a CAPTCHA
 *   (reported, not solved), the form again (wrong password), or anything else (signed in: where we are).
 * Every fill goes through fill.ts (host, tab mode, policy and gate checks at that moment).
 */
import { Type } from '@sinclair/typebox';
import type { Tab } from '../browser/tab.js';
import type { ToolContext } from '../call/context.js';
import { inline, pageUrl, type ResponseBuilder } from '../call/response.js';
import type { LoginView } from '../../injected/api.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkUrl } from '../net/url-check.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { waitForOtp } from './otp/index.js';
import { createHandoff } from '../handoff/index.js';
import { fieldValue, loginEntry, type LoginEntry } from './entry.js';
import { fillCode, fillSecret, submitForm } from './fill.js';
import { hostBelongs, hostOfName } from '../secrets/site-match.js';
import { freshTotpCode } from './totp.js';
import { PageText, TabIdField } from '../../protocol/output-fields.js';
import { cleanBeforeOpening } from '../secrets/site-storage.js';
import { HANDOFFS } from '../handoff/service.js';

export const LOGIN_OUTCOMES = ['signed_in', 'wrong_password', 'captcha', 'two_factor_needed', 'code_rejected', 'no_login_form', 'form_not_accepted'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

/** browser_login's result: how the sign-in ended and where the tab is. Names what was used, never a value or code. */
export const LoginResult = Type.Object({
  tab: TabIdField,
  outcome: Type.Union(LOGIN_OUTCOMES.map((o) => Type.Literal(o))),
  url: PageText({ description: 'Where the tab is when the sign-in ended.' }),
  title: PageText({ description: "The page's title there (may be empty)." }),
  secondFactor: Type.Optional(Type.String({ description: 'How a code prompt was answered: "totp", or "otp_inbox:<entry>" for a code read from that inbox.' })),
  handoff: Type.Optional(
    Type.Object(
      {
        id: Type.String(),
        url: Type.String({ description: 'The link to give the person.' }),
        expiresAt: Type.String(),
        capped: Type.Optional(Type.Boolean({ description: "The server's whole-life cap cut the expiry." })),
      },
      { description: 'two_factor_needed: the hand-off a person must finish (browser_handoff_wait with its id).' },
    ),
  ),
});

/** Steps a sign-in may take (user name page, password page, code page, and one spare). */
const MAX_STEPS = 5;
const OTP_WAIT_MS = 60_000;

/** The URL to open: the one given, else the entry's login URL, else the entry's host. It must belong to the entry. */
export function loginUrlFor(entry: LoginEntry, given: string | undefined, ctx: ToolContext): string {
  const raw = given ?? entry.info.loginUrl ?? (hostOfName(entry.info.name) ? `https://${entry.info.name}/` : undefined);
  if (!raw) throw new BrowserdError('validation_error', `vault entry ${entry.info.name} has no login URL and its name is not a host`, { next: 'Pass loginUrl, or ask the user to set the entry\'s login URL.' });
  const url = checkUrl(raw, ctx.env.cfg);
  const host = new URL(url).hostname;
  if (!hostBelongs(host, entry.info)) {
    throw new BrowserdError('refused', `${host} is not a host of vault entry ${entry.info.name}`, { next: 'Use a login URL on the entry\'s own site.' });
  }
  return url;
}

/**
 * Signs in, in `given` (the caller's tab) or, when the user has no tab open at all, in a new act tab opened
 * here once the entry, its login URL and the host policy have passed: a refused sign-in leaves no tab behind.
 */
export async function runLogin(ctx: ToolContext, given: Tab | undefined, args: { site: string; loginUrl?: string }, out: ResponseBuilder): Promise<void> {
  const started = new Date();
  const entry = loginEntry(ctx, args.site);
  const password = fieldValue(entry, 'password');
  const username = entry.secrets.fields.username || entry.secrets.fields.email;
  for (const v of Object.values(entry.secrets.fields)) out.addSecret(v);
  if (given?.mode === 'read') {
    throw new BrowserdError('refused', `${given.id} is a read tab: signing in needs an act tab`, { next: 'Open one with browser_open{url, mode:"act"} and pass it as tab.' });
  }
  const url = loginUrlFor(entry, args.loginUrl, ctx);
  // A site where no secret may go is refused before it is even opened.
  const access = evaluateHostPolicy(ctx.env.policies.rules(ctx.user.id), url);
  if (access === 'read_only' || access === 'blocked') {
    throw new BrowserdError(access === 'blocked' ? 'blocked' : 'site_read_only', `${new URL(url).hostname} is ${access === 'blocked' ? 'blocked' : 'read-only'} by the user's policy: no sign-in there`, { next: 'Report this to the user. Do not try another way.' });
  }
  const tab = given ?? (await openLoginTab(ctx, out));
  // The site's storage is cleaned first if agent code may have written it (secrets/site-storage.ts) and nothing of it is open.
  await cleanBeforeOpening(ctx.env.agentStorage, tab, url, (await ctx.browser(tab.record.profile)).tabs.values());
  await tab.navigate(url);

  let sentUser = false;
  let sentPassword = false;
  let sentCode = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    ctx.checkCancelled();
    const view = await tab.call('loginView');
    if (view.captcha) return finish(ctx, tab, out, 'captcha', `The page shows a CAPTCHA (${view.captcha}); it was not solved. Look at it with the browser_captcha_* tools, or ask the user.`);
    if (view.password) {
      if (sentPassword) {
        const said = view.error || view.passwordInvalid;
        if (view.error) out.page('error shown by the page', view.error);
        return finish(ctx, tab, out, said ? 'wrong_password' : 'form_not_accepted', said
          ? `The sign-in form came back with an error: the password (or user name) of ${entry.info.name} was not accepted. Do not retry; tell the user the vault entry may be out of date.`
          : 'The sign-in form came back without a visible reason. Take a browser_snapshot to see why.');
      }
      if (view.username && username) await fillSecret(ctx, tab, entry, view.username, username, out);
      await fillSecret(ctx, tab, entry, view.password, password, out);
      await submitForm(ctx, tab, entry, view.password, view.submit);
      sentPassword = true;
      continue;
    }
    if (view.code && sentPassword) {
      if (sentCode) {
        if (view.error) out.page('error shown by the page', view.error);
        return finish(ctx, tab, out, 'code_rejected', 'The page asks for the code again: the code sent was not accepted. Tell the user; do not retry in a loop.');
      }
      const answered = await secondFactor(ctx, tab, entry, view, started, out);
      if (!answered) return;
      sentCode = true;
      continue;
    }
    if (view.username && !sentUser && !sentPassword && username) {
      // Two-step sign-in: the user name first, the password on the next view.
      await fillSecret(ctx, tab, entry, view.username, username, out);
      await submitForm(ctx, tab, entry, view.username, view.submit);
      sentUser = true;
      continue;
    }
    if (!sentPassword) {
      return finish(ctx, tab, out, 'no_login_form', `No sign-in form was found at ${pageUrl(tab.url)}${sentUser ? ' after the user name was sent' : ''}. The browser may already be signed in (a saved session); take a browser_snapshot to see, and pass loginUrl if the form lives elsewhere.`);
    }
    return finish(ctx, tab, out, 'signed_in', `Signed in to ${entry.info.name}.`);
  }
  return finish(ctx, tab, out, 'form_not_accepted', 'The sign-in did not finish in the expected steps. Take a browser_snapshot to see where it stands.');
}

/**
 * A blank act tab in the user's default profile, made the default tab like browser_open's: the sign-in then
 * opens the login URL in it through the same path as in a tab the caller gave.
 */
async function openLoginTab(ctx: ToolContext, out: ResponseBuilder): Promise<Tab> {
  const inst = await ctx.browser();
  const tab = await inst.openTab({ mode: 'act' });
  ctx.touch(tab);
  await ctx.env.tabs.setDefault(ctx.user.id, tab.id);
  out.set('tab', tab.id).text(`Opened act tab ${tab.id} for the sign-in (no tab was open).`);
  return tab;
}

/**
 * A code prompt after the password. True when a code was filled and sent; false when the call ends here
 * (a person must enter it), with the outcome already reported.
 */
async function secondFactor(ctx: ToolContext, tab: Tab, entry: LoginEntry, view: LoginView, since: Date, out: ResponseBuilder): Promise<boolean> {
  const ref = view.code!;
  const totp = entry.secrets.fields.totp;
  if (totp) {
    await fillCode(ctx, tab, entry, ref, await freshTotpCode(totp, ctx.signal), true, out);
    out.set('secondFactor', 'totp').text('The code prompt was answered with the authenticator code (totp).');
    return true;
  }
  const inboxes = ctx.env.vault.list(ctx.user.id).filter((e) => e.kind === 'otp_inbox');
  let otpProblem: string | undefined;
  if (inboxes.length) {
    try {
      const ac = new AbortController();
      const onAbort = () => ac.abort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const found = await waitForOtp(ctx.env, ctx.user.id, { site: entry.info.name, since, timeoutMs: OTP_WAIT_MS, signal: ac.signal }).finally(() => ctx.signal.removeEventListener('abort', onAbort));
      await fillCode(ctx, tab, entry, ref, found.code, true, out);
      out.set('secondFactor', `otp_inbox:${found.inbox}`).text(`The code prompt was answered with a code from inbox ${found.inbox}.`);
      return true;
    } catch (e) {
      if (!(e instanceof BrowserdError) || !['not_configured', 'not_found', 'timeout'].includes(e.code)) throw e;
      ctx.checkCancelled();
      otpProblem = e.message;
    }
  }
  await askPerson(ctx, tab, entry, out, otpProblem);
  return false;
}

async function askPerson(ctx: ToolContext, tab: Tab, entry: LoginEntry, out: ResponseBuilder, otpProblem?: string) {
  const message = `Enter the sign-in code for ${entry.info.name} in the browser below, then press Done.`;
  const why = otpProblem ? ` (no code came from the user's inbox: ${otpProblem})` : ' and the entry has no totp and the user no otp inbox';
  const h = await createHandoff(ctx.service(HANDOFFS), ctx.user.id, { reason: 'two_factor', message, tab: tab.id });
  out.set('handoff', h);
  await finish(
    ctx,
    tab,
    out,
    'two_factor_needed',
    `The site asks for a second-factor code${why}. A person must enter it: send the user this link (${inline(h.url)}, until ${h.expiresAt}), then browser_handoff_wait{id: "${h.id}"} until they press Done.`,
  );
}

async function finish(_ctx: ToolContext, tab: Tab, out: ResponseBuilder, outcome: LoginOutcome, message: string): Promise<void> {
  const title = await tab.title();
  out.set('tab', tab.id).set('outcome', outcome).set('url', tab.url).set('title', title);
  out.text(`Outcome: ${outcome}. ${message}`);
  out.text(`Tab ${tab.id} is at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
  if (title) out.page(`title of ${tab.id}`, title);
}
