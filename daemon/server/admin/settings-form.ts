/**
 * The browser settings form of the console, both ways: the settings in force as form values, and a posted form
 * as one patch with every setting. The patch then goes through env.browserSettings.update like a PATCH from
 * REST, so the form has no validation of its own: a value it cannot read as a number is passed on as text and
 * refused there with the setting's name.
 */
import { BrowserdError } from '../../../protocol/errors.js';
import type { BrowserSettings, ProfileOverrides } from '../../settings/browser-settings.js';

export const DEVICE_MEMORY = ['0.25', '0.5', '1', '2', '4', '8'];

/** A number when the text is one, else the text itself (for the one validation to name), empty as undefined. */
function numberOrText(form: URLSearchParams, name: string): number | string | undefined {
  const v = (form.get(name) ?? '').trim();
  if (!v) return undefined;
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
}

const text = (form: URLSearchParams, name: string) => (form.get(name) ?? '').trim() || undefined;

/** Host patterns typed one a line (commas and spaces also separate). */
export function patternsOf(value: string | null): string[] {
  return (value ?? '').split(/[\s,]+/).map((p) => p.trim()).filter(Boolean);
}

function profileOf(form: URLSearchParams): Record<string, unknown> | null {
  const p: Record<string, unknown> = {};
  const hc = numberOrText(form, 'profile.hardwareConcurrency');
  if (hc !== undefined) p.hardwareConcurrency = hc;
  const dm = numberOrText(form, 'profile.deviceMemory');
  if (dm !== undefined) p.deviceMemory = dm;
  const screen: Record<string, unknown> = {};
  for (const k of ['width', 'height', 'colorDepth', 'devicePixelRatio']) {
    const v = numberOrText(form, `profile.screen.${k}`);
    if (v !== undefined) screen[k] = v;
  }
  if (Object.keys(screen).length) p.screen = screen;
  const vendor = text(form, 'profile.webgl.vendor');
  const renderer = text(form, 'profile.webgl.renderer');
  if (vendor !== undefined || renderer !== undefined) p.webgl = { vendor: vendor ?? '', renderer: renderer ?? '' };
  const platform = text(form, 'profile.platform');
  if (platform !== undefined) p.platform = platform;
  const uam = text(form, 'profile.userAgentMetadata');
  if (uam !== undefined) {
    try {
      p.userAgentMetadata = JSON.parse(uam);
    } catch {
      throw new BrowserdError('validation_error', 'browser settings not changed: profile.userAgentMetadata is not JSON', {
        next: 'Write it as a JSON object, e.g. {"platform": "Windows", "platformVersion": "15.0.0"}, or leave it empty for the drawn value. Nothing was changed.',
      });
    }
  }
  const humanize = form.has('profile.humanize');
  // Nothing overridden and the default input: no profile at all (native values where the identity has none).
  if (!Object.keys(p).length && humanize) return null;
  return { ...p, humanize };
}

/** The posted form as a patch of every setting. */
export function patchFromForm(form: URLSearchParams): Record<string, unknown> {
  const mode = form.get('profile_enabled');
  const profileEnabled = mode === 'all' ? true : mode === 'sites' ? patternsOf(form.get('profile_enabled_sites')) : mode === 'off' ? false : mode;
  return {
    profile_enabled: profileEnabled,
    profile: profileOf(form),
    block_ads: patternsOf(form.get('block_ads')),
    max_browsers: numberOrText(form, 'max_browsers'),
    signup: form.has('signup'),
  };
}

/** The settings in force as the form's values (empty: native or not set). */
export function formValues(s: BrowserSettings): Record<string, string> {
  const p: ProfileOverrides = s.profile ?? {};
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    profile_enabled: s.profile_enabled === true ? 'all' : Array.isArray(s.profile_enabled) && s.profile_enabled.length ? 'sites' : 'off',
    profile_enabled_sites: Array.isArray(s.profile_enabled) ? s.profile_enabled.join('\n') : '',
    'profile.hardwareConcurrency': str(p.hardwareConcurrency),
    'profile.deviceMemory': str(p.deviceMemory),
    'profile.screen.width': str(p.screen?.width),
    'profile.screen.height': str(p.screen?.height),
    'profile.screen.colorDepth': str(p.screen?.colorDepth),
    'profile.screen.devicePixelRatio': str(p.screen?.devicePixelRatio),
    'profile.webgl.vendor': str(p.webgl?.vendor),
    'profile.webgl.renderer': str(p.webgl?.renderer),
    'profile.platform': str(p.platform),
    'profile.userAgentMetadata': p.userAgentMetadata ? JSON.stringify(p.userAgentMetadata) : '',
    'profile.humanize': p.humanize === false ? '' : 'on',
    block_ads: s.block_ads.join('\n'),
    max_browsers: String(s.max_browsers),
    signup: s.signup ? 'on' : '',
  };
}
