/**
 * The host-wide browser settings an admin sets (console or PATCH /v1/admin/browser-settings): their shape,
 * defaults, and the one validation every writer goes through. A patch with an unknown key or a wrong type is
 * refused whole: nothing changes.
 */
import { Type, type Static } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { patternProblem } from '../policy/host-policy.js';
import { schemaValidator } from '../json-schema.js';

const HostPatterns = Type.Array(Type.String({ minLength: 1, maxLength: 260 }), { maxItems: 500 });

const ScreenOverride = Type.Object(
  {
    width: Type.Integer({ minimum: 320, maximum: 7680 }),
    height: Type.Integer({ minimum: 240, maximum: 4320 }),
    colorDepth: Type.Optional(Type.Union([Type.Literal(24), Type.Literal(30), Type.Literal(32)])),
    devicePixelRatio: Type.Optional(Type.Number({ minimum: 1, maximum: 4 })),
  },
  { additionalProperties: false },
);

const Brand = Type.Object({ brand: Type.String({ minLength: 1, maxLength: 100 }), version: Type.String({ minLength: 1, maxLength: 50 }) }, { additionalProperties: false });

/** Client hints (navigator.userAgentData and Sec-CH-UA-*); what is left out stays as the drawn identity has it. */
const UserAgentMetadataOverride = Type.Object(
  {
    platform: Type.Optional(Type.String({ maxLength: 50 })),
    platformVersion: Type.Optional(Type.String({ maxLength: 50 })),
    architecture: Type.Optional(Type.String({ maxLength: 20 })),
    model: Type.Optional(Type.String({ maxLength: 100 })),
    mobile: Type.Optional(Type.Boolean()),
    bitness: Type.Optional(Type.String({ maxLength: 10 })),
    wow64: Type.Optional(Type.Boolean()),
    brands: Type.Optional(Type.Array(Brand, { maxItems: 10 })),
    fullVersionList: Type.Optional(Type.Array(Brand, { maxItems: 10 })),
  },
  { additionalProperties: false },
);

/** Fields that replace the drawn identity's; null or absent keeps the drawn (or native) value. */
export const ProfileOverrides = Type.Object(
  {
    hardwareConcurrency: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 128 }), Type.Null()])),
    deviceMemory: Type.Optional(Type.Union([Type.Union([0.25, 0.5, 1, 2, 4, 8].map((n) => Type.Literal(n))), Type.Null()])),
    screen: Type.Optional(Type.Union([ScreenOverride, Type.Null()])),
    webgl: Type.Optional(Type.Union([Type.Object({ vendor: Type.String({ minLength: 1, maxLength: 200 }), renderer: Type.String({ minLength: 1, maxLength: 300 }) }, { additionalProperties: false }), Type.Null()])),
    platform: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()])),
    userAgentMetadata: Type.Optional(Type.Union([UserAgentMetadataOverride, Type.Null()])),
    /** Curved pointer paths and paced typing on enabled documents (default true). */
    humanize: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ProfileOverrides = Static<typeof ProfileOverrides>;

export const BrowserSettingsPatch = Type.Object(
  {
    /** false: off; true: every site; host patterns (host-policy syntax): documents of those sites. */
    profile_enabled: Type.Optional(Type.Union([Type.Boolean(), HostPatterns])),
    profile: Type.Optional(Type.Union([ProfileOverrides, Type.Null()])),
    /** Sites (host patterns) whose pages skip ads and trackers; empty: off. */
    block_ads: Type.Optional(HostPatterns),
    max_browsers: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
    /** Whether anyone may create a user on the home page. */
    signup: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type BrowserSettingsPatch = Static<typeof BrowserSettingsPatch>;

export interface BrowserSettings {
  profile_enabled: boolean | string[];
  profile: ProfileOverrides | null;
  block_ads: string[];
  max_browsers: number;
  signup: boolean;
}

export const SETTING_NAMES = ['profile_enabled', 'profile', 'block_ads', 'max_browsers', 'signup'] as const;

/** Settings nobody has set yet: identity off, no ad blocking, sign-up off, the host's --max-browsers. */
export function defaultSettings(maxBrowsers: number): BrowserSettings {
  return { profile_enabled: false, profile: null, block_ads: [], max_browsers: maxBrowsers, signup: false };
}

/** The patch, checked whole: throws validation_error naming every problem, so a bad patch changes nothing. */
export function checkSettingsPatch(patch: unknown): BrowserSettingsPatch {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new BrowserdError('validation_error', 'browser settings must be a JSON object', { next: `Send an object with any of ${SETTING_NAMES.join(', ')}.` });
  }
  const validate = schemaValidator(BrowserSettingsPatch as unknown as Record<string, unknown>);
  const problems: string[] = [];
  if (!validate(patch)) {
    for (const e of validate.errors ?? []) {
      // A union's failure lists every branch: name the field once, with what it takes.
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
      if (e.keyword === 'additionalProperties') problems.push(`${where ? `${where}: ` : ''}unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`);
      else if (!problems.some((p) => p.startsWith(`${where}: `))) problems.push(`${where}: ${e.message}`);
    }
  }
  const p = patch as Record<string, unknown>;
  for (const key of ['profile_enabled', 'block_ads'] as const) {
    if (!Array.isArray(p[key])) continue;
    (p[key] as unknown[]).forEach((pattern, i) => {
      if (typeof pattern !== 'string') return;
      const problem = patternProblem(pattern);
      if (problem) problems.push(`${key}.${i}: ${JSON.stringify(pattern)} ${problem}`);
    });
  }
  if (problems.length) {
    throw new BrowserdError('validation_error', `browser settings not changed: ${problems.join('; ')}`, {
      next: `Keys are ${SETTING_NAMES.join(', ')}; host patterns are written example.com, *.example.com or *. Nothing was changed.`,
      details: { errors: problems },
    });
  }
  return patch as BrowserSettingsPatch;
}
