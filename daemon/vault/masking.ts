/**
 * Screenshots never show a filled secret. Password fields are drawn as dots by the browser; any other field
 * the daemon filled from the vault (card, API key, code) is marked in the page and drawn as dots too. The
 * page could restyle the field afterwards, so the mark is put back right before every capture of a tab that
 * has had one.
 */
import type { Tab } from '../browser/tab.js';

const tabsWithSecrets = new WeakSet<Tab>();

/** Masks the field in `ref` before a secret goes in, so no frame ever draws it in clear. */
export async function maskField(tab: Tab, ref: string): Promise<void> {
  tabsWithSecrets.add(tab);
  await tab.call('maskSecret', ref);
}

/** Called by the capture code before every screenshot; costs nothing for tabs that never held a secret. */
export async function remaskBeforeCapture(tab: Tab): Promise<void> {
  if (!tabsWithSecrets.has(tab)) return;
  await tab.call('remaskSecrets').catch(() => undefined);
}
