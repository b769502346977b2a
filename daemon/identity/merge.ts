/**
 * The identity a user's documents get: their drawn identity with the admin's `profile` overrides on top (a
 * field left out or null keeps the drawn value), and what a user is shown of it (GET /v1/browser/settings,
 * browser_status), where null means the browser's own value.
 */
import type { BrowserSettings, ProfileOverrides } from '../settings/browser-settings.js';
import { insetFor, type Identity, type PlatformHints, type ScreenValues } from './table.js';

export interface Brand { brand: string; version: string }

/** What the identity reports, all fields set: drawn values, the admin's overrides, and whether input is humanized. */
export interface EffectiveIdentity extends Identity {
  userAgentMetadata: PlatformHints & { brands?: Brand[]; fullVersionList?: Brand[] };
  languages: string[];
  humanize: boolean;
}

/** Every identity speaks US English: the language is not drawn (it goes with the user, not with a machine). */
export const IDENTITY_LANGUAGES = ['en-US', 'en'];

export function mergeProfile(drawn: Identity, profile: ProfileOverrides | null | undefined): EffectiveIdentity {
  const p = profile ?? {};
  const hints = { ...drawn.userAgentMetadata, ...definedOnly(p.userAgentMetadata ?? {}) };
  let screen: ScreenValues = drawn.screen;
  if (p.screen) {
    // The OS keeps its taskbar or menu bar whatever the screen: avail sizes follow the identity's platform.
    const inset = insetFor(hints.platform);
    screen = {
      width: p.screen.width,
      height: p.screen.height,
      availWidth: p.screen.width - inset.width,
      availHeight: p.screen.height - inset.height,
      colorDepth: p.screen.colorDepth ?? drawn.screen.colorDepth,
      ...(p.screen.devicePixelRatio !== undefined ? { devicePixelRatio: p.screen.devicePixelRatio } : {}),
    };
  }
  return {
    hardwareConcurrency: p.hardwareConcurrency ?? drawn.hardwareConcurrency,
    deviceMemory: p.deviceMemory ?? drawn.deviceMemory,
    screen,
    webgl: p.webgl ?? drawn.webgl,
    platform: p.platform ?? drawn.platform,
    userAgentMetadata: hints,
    languages: IDENTITY_LANGUAGES,
    humanize: p.humanize !== false,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

/** The identity as a user reads it: `enabled` says where it applies; when it applies nowhere every field is null (native). */
export type IdentityView = { enabled: BrowserSettings['profile_enabled'] } & { [K in keyof EffectiveIdentity]: EffectiveIdentity[K] | null };

export function identityView(settings: BrowserSettings, effective: EffectiveIdentity | undefined): IdentityView {
  const enabled = settings.profile_enabled;
  const on = effective && (enabled === true || (Array.isArray(enabled) && enabled.length > 0));
  if (!on) {
    return { enabled, hardwareConcurrency: null, deviceMemory: null, screen: null, webgl: null, platform: null, userAgentMetadata: null, languages: null, humanize: null };
  }
  return { enabled, ...effective };
}
