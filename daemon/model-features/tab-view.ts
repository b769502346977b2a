/**
 * A tab as a model step sees it: its snapshot (the agent view browser_snapshot gives) and the elements its
 * refs point at. Taken in a context of its own that lets go of the tab as soon as the snapshot is read,
 * because act then runs the chosen tool through callTool, which locks the same tab again: holding it here
 * would make that call wait on us for ever.
 */
import { ToolContext } from '../call/context.js';
import { hideSecrets } from '../reading/model-pages.js';
import { pageTargets, type PageTargets } from './page-targets.js';

export interface TabView extends PageTargets {
  tab: string;
  url: string;
  /** Lower-cased host of the page ('' for about:blank and the like): part of the action cache key. */
  host: string;
  title: string;
  text: string;
}

export async function viewTab(ctx: ToolContext, tabId: string): Promise<TabView> {
  const peek = new ToolContext(ctx.scope, ctx.user, ctx.signal, ctx.via, ctx.modelKey, ctx.progress);
  try {
    const tab = await peek.tab(tabId);
    const snap = await tab.call('snapshot', {});
    // A vault value filled into a plain text field shows in the snapshot as the field's value (only password
    // inputs print dots), and a page may echo one (a greeting with the user name): hidden before a model, the
    // cache or a result can see it. Element names are read after, so none keeps one either.
    const text = hideSecrets(ctx, snap.text);
    const title = hideSecrets(ctx, snap.title);
    return { tab: tab.id, url: snap.url, host: hostOf(snap.url), title, text, ...pageTargets(text) };
  } finally {
    peek.release();
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

/** The snapshot text as the model reads it (inside a fence, by the caller). */
export function viewText(view: TabView): string {
  return `url: ${view.url}\ntitle: ${view.title}\n${view.text}`;
}
