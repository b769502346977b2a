/**
 * Users' identities: each drawn once, on first need, and stored (storage/identities.ts), none shared by two
 * users of the host; merged with the admin's `profile` overrides whenever used, so a settings change shows in
 * the next document without redrawing anything.
 */
import type { IdentityStore } from '../../storage/identities.js';
import type { BrowserSettingsService } from '../settings/service.js';
import { drawIdentity, identityKey } from './draw.js';
import { identityView, mergeProfile, type EffectiveIdentity, type IdentityView } from './merge.js';
import { identityPlan, type IdentityPlan } from './plan.js';
import type { Identity } from './table.js';
import type { UserIdentity } from './tab-identity.js';

export class IdentityService {
  /** Draws one at a time: two users drawing at once must not both take the last free identity they saw. */
  private drawing: Promise<unknown> = Promise.resolve();
  private plans = new Map<string, IdentityPlan>();

  constructor(private store: IdentityStore, private settings: BrowserSettingsService) {}

  /** The user's drawn identity, drawn and stored now if they have none yet. */
  async drawn(user: string): Promise<Identity> {
    const have = this.store.get(user);
    if (have) return have.values as unknown as Identity;
    const next = this.drawing.then(async () => {
      const again = this.store.get(user);
      if (again) return again.values as unknown as Identity;
      const taken = new Set(this.store.all().map((s) => identityKey(s.values as unknown as Identity)));
      const { index, identity } = drawIdentity(taken);
      await this.store.put(user, { index, values: identity as unknown as Record<string, unknown>, drawnAt: new Date().toISOString() });
      return identity;
    });
    this.drawing = next.catch(() => undefined);
    return next;
  }

  /** The drawn identity with the admin's overrides on top. */
  async effective(user: string): Promise<EffectiveIdentity> {
    return mergeProfile(await this.drawn(user), this.settings.current().profile);
  }

  /** What the user is shown: their identity where it applies, nulls (native) when it applies nowhere. */
  async view(user: string): Promise<IdentityView> {
    const s = this.settings.current();
    const on = s.profile_enabled === true || (Array.isArray(s.profile_enabled) && s.profile_enabled.length > 0);
    return identityView(s, on ? await this.effective(user) : undefined);
  }

  /** One user's identity as their browser applies it, per document. */
  forUser(user: string): UserIdentity {
    return {
      plan: async (url, fullVersion) => {
        if (!this.settings.identityAppliesTo(url)) return undefined;
        const identity = await this.effective(user);
        const key = JSON.stringify([fullVersion, identity]);
        let plan = this.plans.get(key);
        if (!plan) {
          plan = identityPlan(identity, fullVersion);
          // Plans are small and few (one per user and settings version): keep the latest ones only.
          if (this.plans.size > 256) this.plans.clear();
          this.plans.set(key, plan);
        }
        return plan;
      },
      humanizes: (url) => this.settings.identityAppliesTo(url) && this.settings.current().profile?.humanize !== false,
      onChange: (cb) => this.settings.onChange(() => cb()),
    };
  }
}
