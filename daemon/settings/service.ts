/**
 * The browser settings as the daemon uses them: read from LMDB at start, changed only through update() (one
 * validation, stored before anyone sees the change), and told to whoever applies them (identity, ad blocking,
 * the browser pool) so documents loaded after a change get it.
 */
import type { BrowserSettingsStore } from '../../storage/browser-settings.js';
import { hostMatches } from '../policy/url-rules.js';
import { checkSettingsPatch, defaultSettings, type BrowserSettings } from './browser-settings.js';

/** Told of each change; update() answers once every listener's promise has settled (a change applied before it is acknowledged). */
type Listener = (s: BrowserSettings) => void | Promise<void>;

export class BrowserSettingsService {
  private settings: BrowserSettings;
  private listeners = new Set<Listener>();

  constructor(private store: BrowserSettingsStore, private hostMaxBrowsers: number) {
    this.settings = { ...defaultSettings(hostMaxBrowsers), ...(store.stored() as Partial<BrowserSettings>) };
  }

  current(): BrowserSettings {
    return this.settings;
  }

  /** Checks the patch whole, stores it, then tells the listeners. Answers the settings now in force. */
  async update(patch: unknown): Promise<BrowserSettings> {
    const checked = checkSettingsPatch(patch);
    const stored = { ...this.store.stored(), ...checked };
    await this.store.put(stored);
    this.settings = { ...defaultSettings(this.hostMaxBrowsers), ...(stored as Partial<BrowserSettings>) };
    const settings = this.settings;
    await Promise.allSettled([...this.listeners].map((l) => l(settings)));
    return settings;
  }

  /** Calls `l` after every change; returns the unsubscribe. */
  onChange(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Whether the persistent identity applies to a document at `url` (profile_enabled: true or a matching pattern). */
  identityAppliesTo(url: string): boolean {
    return matchesSetting(this.settings.profile_enabled, url);
  }

  /** Whether requests made by a page at `pageUrl` skip ads and trackers. */
  blocksAdsOn(pageUrl: string): boolean {
    return matchesSetting(this.settings.block_ads, pageUrl);
  }
}

function matchesSetting(value: boolean | string[], url: string): boolean {
  if (value === true) return true;
  if (!Array.isArray(value) || !value.length) return false;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  if (!host) return false;
  return value.some((pattern) => hostMatches(host, pattern));
}
