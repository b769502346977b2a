/**
 * Every hop of a page fetch judged as a link is judged. A link can look harmless (/go?to=x) and answer 302 to
 * /logout or /cart/empty, or to a host the crawl must not visit; a page can send its tab on by itself (a meta
 * refresh, a script setting location). So each redirect's target, and each navigation a read tab's page starts,
 * must pass what a found link must pass, BEFORE anything is sent to it: the crawl's scope (same sites,
 * allow/deny), no sign-out, on the signed-in profile no address that acts (destructive-links.ts), the address
 * policy (fetch/guarded-fetch.ts: scheme, host policy, private and reserved addresses), and robots.txt. A page whose
 * hop is refused ends `blocked` with a reason that names the hop; the hop is never requested.
 *
 * Hops are judged in the browser (WriteGuard's document judge, at the request stage of each document request)
 * and in the daemon's own fetch (guardedFetch's beforeRedirect). A frame's or popup's document is no crawl
 * page: it is only held to the rules about acting (sign-out, destructive), and refused without failing the page.
 */
import type { DocumentJudge } from '../browser/write-guard.js';
import type { Tab } from '../browser/tab.js';
import { addressRefusal, type FetchGuard } from '../fetch/guarded-fetch.js';
import { actionRefusal, redirectReason } from '../policy/destructive-links.js';
import type { RobotsBook } from './robots.js';
import { onSites, pageKey, passesRules } from './rules.js';

/** A hop of the page's fetch was refused: the page ends blocked with `reason`. */
export class HopRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'HopRefused';
  }
}

/** What a crawl run judges its links by, for its hops. */
export interface HopRules {
  sameDomain: boolean;
  sites: ReadonlySet<string>;
  allow: readonly string[];
  deny: readonly string[];
  /** Read with the person's cookies (modes browser and auto): addresses that act are refused. */
  onProfile: boolean;
  obeyRobots: boolean;
  robots: RobotsBook;
  guard: FetchGuard;
}


/**
 * Why a crawl does not follow a hop to `url`, or undefined. `start`: the hop belongs to a start URL, which the
 * allow/deny patterns do not apply to (as they do not to the start URL itself), so a home page that redirects
 * to its language's home still reads. Every other judgement holds for start URLs too.
 */
export async function hopRefusal(rules: HopRules, url: string, start: boolean): Promise<string | undefined> {
  if (rules.sameDomain && !onSites(url, rules.sites)) return "it leaves the crawl's sites (sameDomain)";
  if (!start && !passesRules(url, rules.allow, rules.deny)) return "the crawl's allow/deny patterns leave it out";
  const acts = actionRefusal(url, rules.onProfile);
  if (acts) return acts;
  const address = await addressRefusal(url, rules.guard);
  if (address) return address;
  if (rules.obeyRobots && !(await rules.robots.rulesFor(url)).allowed(url)) return 'robots.txt disallows it';
  return undefined;
}


/**
 * The document judge of one read tab, and what it refused for the page being read. The tab keeps it for its
 * life: a page that navigates itself after it was read (or while the tab waits for its next page) is refused
 * the same way, it just fails no page.
 */
export class TabHops {
  private page?: { url: string; start: boolean; refused?: string };

  /**
   * `main`: why the tab's own page may not go to `url` (`start`: the page read is a start URL). `frame`: why a
   * frame or popup of it may not load `url`.
   */
  constructor(
    private readonly main: (url: string, start: boolean) => Promise<string | undefined>,
    private readonly frame: (url: string) => string | undefined,
  ) {}

  /** Reading `url` begins in the tab: refusals from here on are this page's. */
  begin(url: string, start = false): void {
    this.page = { url: pageKey(url), start };
  }

  /** Why the page being read was stopped (the first refused hop of its own frame), if it was. */
  refused(): string | undefined {
    return this.page?.refused;
  }

  end(): void {
    this.page = undefined;
  }

  readonly judge: DocumentJudge = async (req) => {
    const page = this.page;
    if (!req.mainFrame) {
      const why = this.frame(req.url);
      return why && `${req.redirect ? redirectReason(req.redirect.from, req.url, why) : `a frame or window of the page was not let load ${req.url}: ${why}`}`;
    }
    // The page's own first request was judged when its link was queued; going there again (a reload) too.
    if (!req.redirect && page && samePage(req.url, page.url)) return undefined;
    const why = await this.main(req.url, page?.start ?? false);
    if (!why) return undefined;
    const reason = req.redirect ? redirectReason(req.redirect.from, req.url, why) : `the page went on to ${req.url} by itself (a meta refresh or a script), which was not followed: ${why}`;
    if (page && page === this.page) page.refused ??= reason;
    return reason;
  };
}

function samePage(a: string, b: string): boolean {
  try {
    return pageKey(a) === b;
  } catch {
    return false;
  }
}

/**
 * For readers of the signed-in profile that are no crawl (browser_explore, browser_map with useBrowser): every
 * document of `tab` is held to the rules about acting (sign-out, destructive-links.ts), redirects and the
 * page's own navigations included. Installed before the tab loads anything; the tab keeps it until it closes.
 */
export async function judgeActions(tab: Tab): Promise<TabHops> {
  const hops = new TabHops(async (url) => actionRefusal(url, true), (url) => actionRefusal(url, true));
  await tab.judgeDocuments(hops.judge);
  return hops;
}
