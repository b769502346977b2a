/**
 * The one place a failure of the in-page script becomes a BrowserdError: the code comes from the script (never
 * guessed from message text) and the next step from this table. Page-controlled facts in details (the element
 * covering a target, a select's option texts) stay out of the message: they are the error's page text, which
 * MCP shows fenced (protocol/errors.ts PAGE_TEXT_DETAIL); REST callers also keep them as data in details.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { InjectedAnswer, InjectedFailureCode } from '../../injected/api.js';
import { own } from '../../protocol/own.js';

type Failure = Extract<InjectedAnswer<unknown>, { ok: false }>;

const NEXT: Record<InjectedFailureCode, string> = {
  stale_ref: 'Take a new browser_snapshot and use a ref from it.',
  not_found: 'Take a new browser_snapshot and use a ref from it.',
  refused: 'Scroll or take a new browser_snapshot.',
  validation_error: 'Fix the argument as the message says.',
  action_failed: 'Take a new browser_snapshot to see the page as it is.',
};

/** Finer next steps where the script says why (details.reason). */
const NEXT_BY_REASON: Record<string, string> = {
  covered: 'Close what covers it (a dialog or banner), or use mode "dom" to click the element directly.',
  disabled: 'Fill what the form needs first, then take a new browser_snapshot.',
  readonly: 'The field is read-only: pick another field.',
  not_visible: 'Scroll or take a new browser_snapshot; browser_query with includeHidden finds hidden elements.',
  outside_viewport: 'Scroll or take a new browser_snapshot.',
  not_fillable: 'Use browser_click, browser_type or browser_upload as the message says.',
  bad_value: 'Pass a value in the form the message gives.',
  no_option: 'Pass one of the options listed in the page text of this error (its text or value).',
};

export function injectedFailure(f: Failure): BrowserdError {
  const details = f.details;
  const reason = typeof details?.reason === 'string' ? details.reason : undefined;
  const quoted: string[] = [];
  if (typeof details?.coveredBy === 'string') quoted.push(`covered by: ${details.coveredBy}`);
  if (Array.isArray(details?.options)) {
    const more = typeof details.optionCount === 'number' && details.optionCount > details.options.length ? `, … (${details.optionCount} in all)` : '';
    quoted.push(`options: ${details.options.map((o) => JSON.stringify(String(o))).join(', ')}${more}`);
  }
  const next = own(NEXT_BY_REASON, reason) ?? own(NEXT, f.code) ?? NEXT.action_failed;
  return new BrowserdError(f.code, f.message, { next, ...(details ? { details } : {}), ...(quoted.length ? { pageText: quoted.join('\n') } : {}) });
}
