/** Moving through a tab's history: reload, back, forward. */
import { BrowserdError } from '../../protocol/errors.js';
import { afterAction, type Tab } from './tab.js';

/** Reloads and waits for the load event (not for the network to settle: the caller decides). */
export async function reload(tab: Tab): Promise<void> {
  const loaded = tab.waitForLoad();
  await tab.send('Page.reload', {});
  await loaded.catch(() => undefined);
}

/** One step back or forward; action_failed when there is no such entry. */
export async function goHistory(tab: Tab, direction: 'back' | 'forward'): Promise<void> {
  const h = await tab.send('Page.getNavigationHistory', {});
  const entry = h.entries[h.currentIndex + (direction === 'back' ? -1 : 1)];
  if (!entry) throw new BrowserdError('action_failed', `there is no page to go ${direction} to`, { next: 'Use browser_navigate instead.' });
  const mark = tab.mark();
  await tab.send('Page.navigateToHistoryEntry', { entryId: entry.id });
  // A same-document entry starts no load: afterAction then only waits for network quiet.
  await afterAction(tab, mark, 200);
}
