/**
 * Putting vault values and one-time codes into a page, and sending the form. Values go in through the same
 * in-page fill browser_fill uses (value set and input/change fired; no key events, so nothing of it passes
 * through the input layer or its logs). The builder learns each value first, so no result can echo it.
 */
import type { Tab } from '../browser/tab.js';
import { afterAction } from '../browser/tab.js';
import { mouseClick, pressKey } from '../browser/input.js';
import { resolveKey } from '../browser/keys.js';
import type { ToolContext } from '../call/context.js';
import type { ResponseBuilder } from '../call/response.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { LoginEntry } from './entry.js';
import { assertSecretTarget, gateFound } from './page-guard.js';
import { maskField } from '../secrets/masking.js';
import { admitSecretFill } from '../secrets/secret-documents.js';
import { noteSignInStep } from './sign-in-steps.js';

/**
 * Fills one secret into `ref` after every check of page-guard.ts, and only where no agent code can read it
 * (secrets/secret-documents.ts). The field is masked first, whatever its type (screenshots). The page's own note
 * about the value is dropped: it could quote the value.
 */
export async function fillSecret(ctx: ToolContext, tab: Tab, entry: LoginEntry, ref: string, value: string, out: ResponseBuilder, opts: { gated?: boolean } = {}): Promise<void> {
  out.addSecret(value);
  await assertSecretTarget(ctx, tab, entry.info, ref);
  if (!opts.gated) await gateFound(ctx, tab, 'fill', ref);
  const target = await tab.call('secretTarget', ref);
  const browser = await ctx.browser(tab.record.profile);
  const profile = tab.record.profile ?? '';
  await admitSecretFill(tab, browser.tabs.values(), {
    fieldHost: target.host,
    cdpSessionOpen: () => ctx.env.cdpSessions.list(ctx.user.id).some((s) => (s.profile ?? '') === profile),
    cdpSessionEndedAt: () => ctx.env.cdpSessions.lastUsedEndedAt(ctx.user.id, tab.record.profile),
    storage: ctx.env.agentStorage,
  });
  await maskField(tab, ref, value);
  await tab.call('fill', ref, value);
  // A code the site sends for this step may come before browser_fill_otp is called (sign-in-steps.ts).
  noteSignInStep(ctx.user.id, tab.id, entry.info.name);
}

/** Fills a one-time code (remembered first, so later results are scrubbed of it) and sends its form when asked. */
export async function fillCode(ctx: ToolContext, tab: Tab, entry: LoginEntry, ref: string, code: string, submit: boolean, out: ResponseBuilder): Promise<'clicked' | 'enter' | 'none'> {
  ctx.env.filledCodes.remember(ctx.user.id, code);
  await fillSecret(ctx, tab, entry, ref, code, out);
  if (!submit) return 'none';
  return submitForm(ctx, tab, entry, ref);
}

/**
 * Sends the form of `fieldRef`: a click on its submit button when it has one, else Enter in the field. Both go
 * through the policy gate. The tab's host is checked again: the values are in the page, and only the entry's
 * own site may receive them.
 */
export async function submitForm(ctx: ToolContext, tab: Tab, entry: LoginEntry, fieldRef: string, submitRef?: string | null): Promise<'clicked' | 'enter'> {
  await assertSecretTarget(ctx, tab, entry.info, fieldRef);
  const button = submitRef ?? (await tab.call('submitFor', fieldRef));
  const mark = tab.mark();
  let how: 'clicked' | 'enter';
  if (button) {
    await gateFound(ctx, tab, 'click', button);
    const { x, y } = await tab.call('pointFor', button);
    await mouseClick(tab, x, y);
    how = 'clicked';
  } else {
    await gateFound(ctx, tab, 'press_enter', fieldRef);
    await tab.call('focus', fieldRef);
    await pressKey(tab, resolveKey('Enter')!);
    how = 'enter';
  }
  await afterAction(tab, mark, 300);
  return how;
}

/** The code field: the ref given, else the one the page shows (autocomplete, inputmode, name or label). */
export async function codeFieldRef(tab: Tab, ref: string | undefined): Promise<string> {
  if (ref) return ref;
  const view = await tab.call('loginView');
  if (view.code) return view.code;
  throw new BrowserdError('not_found', `no one-time code field found in ${tab.id}`, { next: 'Take a browser_snapshot and pass the field as ref.' });
}
