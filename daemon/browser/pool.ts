/**
 * The host's browsers: one per user (and per named profile), started on first use, never shared, capped by
 * a host-wide maximum. Past it: 503 browser_capacity with Retry-After.
 */
import type { Logger } from 'pino';
import { BrowserInstance, instanceKey } from './instance.js';
import type { TabStore } from '../../storage/tabs.js';
import type { Config } from '../config.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { HostAccess } from '../policy/host-policy.js';

export class BrowserPool {
  private instances = new Map<string, BrowserInstance>();
  private starting = new Map<string, Promise<BrowserInstance>>();
  private closing = false;

  constructor(
    private cfg: Config,
    private tabs: TabStore,
    private log: Logger,
    private proxyPort: () => number | undefined,
    private hostAccess: (user: string, url: string) => HostAccess | 'default' = () => 'default',
  ) {}

  get count() {
    return this.instances.size + this.starting.size;
  }

  /** The running browser for a user/profile, if any (does not start one). */
  peek(user: string, profile?: string): BrowserInstance | undefined {
    const i = this.instances.get(instanceKey(user, profile));
    return i?.alive ? i : undefined;
  }

  /** True when a call for this user would need a new browser and none may start. */
  wouldExceed(user: string, profile?: string): boolean {
    const key = instanceKey(user, profile);
    if (this.instances.get(key)?.alive || this.starting.has(key)) return false;
    return this.count >= this.cfg.maxBrowsers;
  }

  capacityError(): BrowserdError {
    return new BrowserdError('browser_capacity', `this host already runs all the browsers it may (${this.cfg.maxBrowsers})`, {
      next: `Wait ${this.cfg.capacityRetryAfterS} seconds and retry; an admin can raise --max-browsers or give the host more memory.`,
      retryAfterS: this.cfg.capacityRetryAfterS,
    });
  }

  async get(user: string, profile?: string): Promise<BrowserInstance> {
    if (this.closing) throw new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' });
    const key = instanceKey(user, profile);
    const existing = this.instances.get(key);
    if (existing?.alive) return existing;
    if (existing) this.instances.delete(key);
    const pending = this.starting.get(key);
    if (pending) return pending;
    if (this.count >= this.cfg.maxBrowsers) throw this.capacityError();
    const inst = new BrowserInstance({
      user,
      profile,
      dataDir: this.cfg.dataDir,
      chrome: this.cfg.chrome,
      headless: this.cfg.headless,
      proxyPort: this.proxyPort(),
      chromeArgs: this.cfg.chromeArgs,
      tabs: this.tabs,
      log: this.log,
      hostAccess: (url) => this.hostAccess(user, url),
      onExit: (i) => {
        if (this.instances.get(i.key) === i) this.instances.delete(i.key);
      },
    });
    const p = inst
      .start()
      .then(() => {
        this.instances.set(key, inst);
        return inst;
      })
      .catch(async (e) => {
        await inst.close().catch(() => undefined);
        throw new BrowserdError('internal_error', `the browser did not start: ${e instanceof Error ? e.message : e}`, { next: 'Run `browserd doctor` on the host.' });
      })
      .finally(() => this.starting.delete(key));
    this.starting.set(key, p);
    return p;
  }

  list(): BrowserInstance[] {
    return [...this.instances.values()];
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.starting.values()]);
    await Promise.allSettled(this.list().map((i) => i.close()));
    this.instances.clear();
  }
}
