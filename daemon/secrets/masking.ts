/**
 * Screenshots never show a filled secret. Every field the daemon fills from the vault (password, card, API
 * key, code) is marked in the page and drawn as dots, whatever its type: a page's own "show password" button
 * turns a password field into a text field, which the browser alone would draw in clear. The page could
 * restyle the field, or copy the value into a new one, so right before every capture of a tab that has had a
 * secret the marks are put back and any field holding a filled value is marked too.
 */
import type { Tab } from '../browser/tab.js';
import { holdsSecret } from './secret-documents.js';
import { beforeEveryCapture } from '../browser/before-capture.js';

/** Values filled into each tab (the newest few): a document the browser brings back refills its fields with them. */
const filledIn = new WeakMap<Tab, string[]>();
const KEEP_PER_TAB = 20;

/** Masks the field in `ref` before `value` goes in, so no frame ever draws it in clear. */
export async function maskField(tab: Tab, ref: string, value: string): Promise<void> {
  // From the first value on, every capture of this tab puts the masks back first (browser/capture.ts).
  if (!filledIn.has(tab)) beforeEveryCapture(tab, () => remaskBeforeCapture(tab));
  filledIn.set(tab, [...(filledIn.get(tab) ?? []).filter((v) => v !== value), value].slice(-KEEP_PER_TAB));
  await tab.call('maskSecret', ref, value);
}

/**
 * Run before every screenshot of a tab that has had a secret (registered by maskField). The
 * values go only to a document that holds them (the same page, or the one the browser brought back into its
 * history entry): any other page could test guesses against what gets masked.
 */
export async function remaskBeforeCapture(tab: Tab): Promise<void> {
  const values = filledIn.get(tab);
  if (!values || !holdsSecret(tab)) return;
  await tab.call('remaskSecrets', values).catch(() => undefined);
}
