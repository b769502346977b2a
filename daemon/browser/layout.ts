/** The tab's geometry as the compositor sees it: viewport and scrollable content size, in CSS pixels. */
import type { Tab } from './tab.js';

export async function viewportSize(tab: Tab): Promise<{ width: number; height: number }> {
  const m = await tab.send('Page.getLayoutMetrics', {});
  return { width: m.cssLayoutViewport.clientWidth, height: m.cssLayoutViewport.clientHeight };
}

export async function contentSize(tab: Tab): Promise<{ width: number; height: number }> {
  const m = await tab.send('Page.getLayoutMetrics', {});
  return { width: m.cssContentSize.width, height: m.cssContentSize.height };
}

/** Brings the tab to the front of its window (best effort: a headless browser may have no window to raise). */
export async function bringToFront(tab: Tab): Promise<void> {
  await tab.send('Page.bringToFront', {}).catch(() => undefined);
}
