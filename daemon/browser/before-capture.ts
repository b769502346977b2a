/**
 * What must happen to a tab right before any picture of it is taken. The vault registers here when it first
 * fills a secret into a tab (secrets/masking.ts: the filled fields are masked again), so the capture code, which
 * stands below the vault, runs that step without importing it. A tab nothing registered for costs nothing.
 */
import type { Tab } from './tab.js';

const steps = new WeakMap<Tab, () => Promise<void>>();

/** Sets the step run before every capture of `tab` (one per tab: the vault's remasking). */
export function beforeEveryCapture(tab: Tab, step: () => Promise<void>): void {
  steps.set(tab, step);
}

/** Runs the tab's step, if it has one; the capture code calls this before every screenshot. */
export async function runBeforeCapture(tab: Tab): Promise<void> {
  await steps.get(tab)?.();
}
