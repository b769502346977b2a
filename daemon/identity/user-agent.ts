/**
 * The user agent an identity shows: the User-Agent string, navigator.userAgentData and the Sec-CH-UA headers,
 * built from the real Chromium version (never "Headless") and the identity's platform, so headers and
 * navigator agree and match the build that actually renders the page.
 */
import { arch, platform as osPlatform } from 'node:os';
import type { Protocol } from 'devtools-protocol';
import type { Brand, EffectiveIdentity } from './merge.js';
import type { PlatformHints } from './table.js';

/** "HeadlessChrome/156.0.8078.108" or "Chrome/156.0.8078.108" -> "156.0.8078.108". */
export function versionOf(product: string): string {
  const m = /(\d+(?:\.\d+){3})/.exec(product);
  if (!m) throw new Error(`no browser version in "${product}"`);
  return m[1]!;
}

const GREASE_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASE_VERSIONS = ['8', '99', '24'];

/**
 * Chromium's own brand list (its GREASE brand, then "Chromium"), seeded by the major version as Chromium seeds
 * it, so the identity's brands are the ones this build would send by itself.
 */
export function chromiumBrands(fullVersion: string): { brands: Brand[]; fullVersionList: Brand[] } {
  const major = Number(fullVersion.split('.')[0]);
  const grease = `Not${GREASE_CHARS[major % GREASE_CHARS.length]}A${GREASE_CHARS[(major + 1) % GREASE_CHARS.length]}Brand`;
  const greaseVersion = GREASE_VERSIONS[major % GREASE_VERSIONS.length]!;
  // Without a vendor brand Chromium places its two by the seed's parity.
  const order = <T>(g: T, c: T): T[] => (major % 2 === 0 ? [g, c] : [c, g]);
  return {
    brands: order({ brand: grease, version: greaseVersion }, { brand: 'Chromium', version: String(major) }),
    fullVersionList: order({ brand: grease, version: `${greaseVersion}.0.0.0` }, { brand: 'Chromium', version: fullVersion }),
  };
}

/** The User-Agent platform token of a client-hints platform, as Chrome writes it (frozen, reduced UA). */
function platformToken(hints: PlatformHints): string {
  switch (hints.platform) {
    case 'Windows':
      return hints.bitness === '32' && !hints.wow64 ? 'Windows NT 10.0' : 'Windows NT 10.0; Win64; x64';
    case 'macOS':
      return 'Macintosh; Intel Mac OS X 10_15_7';
    case 'Chrome OS':
      return 'X11; CrOS x86_64 14541.0.0';
    default:
      return 'X11; Linux x86_64';
  }
}

export function userAgentString(hints: PlatformHints, fullVersion: string): string {
  const major = fullVersion.split('.')[0];
  return `Mozilla/5.0 (${platformToken(hints)}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

/** Accept-Language as Chromium formats a language list: each after the first with a falling q. */
export function acceptLanguageHeader(languages: string[]): string {
  return languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(',');
}

/** Emulation.setUserAgentOverride for an identity in a browser of `fullVersion`. */
export function userAgentOverride(identity: EffectiveIdentity, fullVersion: string): Protocol.Emulation.SetUserAgentOverrideRequest {
  const own = chromiumBrands(fullVersion);
  const h = identity.userAgentMetadata;
  return {
    userAgent: userAgentString(h, fullVersion),
    acceptLanguage: identity.languages.join(','),
    platform: identity.platform,
    userAgentMetadata: {
      brands: h.brands ?? own.brands,
      fullVersionList: h.fullVersionList ?? own.fullVersionList,
      fullVersion,
      platform: h.platform,
      platformVersion: h.platformVersion,
      architecture: h.architecture,
      model: h.model,
      mobile: h.mobile,
      bitness: h.bitness,
      wow64: h.wow64,
      formFactors: [h.mobile ? 'Mobile' : 'Desktop'],
    },
  };
}

/** The host's own client hints, as this Chromium sends them without an override (Linux reports no version). */
export function nativeMetadata(fullVersion: string): Protocol.Emulation.UserAgentMetadata {
  const os = osPlatform();
  const name = os === 'win32' ? 'Windows' : os === 'darwin' ? 'macOS' : 'Linux';
  return {
    ...chromiumBrands(fullVersion),
    fullVersion,
    platform: name,
    platformVersion: '',
    architecture: /arm/.test(arch()) ? 'arm' : 'x86',
    model: '',
    mobile: false,
    bitness: /64/.test(arch()) ? '64' : '32',
    wow64: false,
    formFactors: ['Desktop'],
  };
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, '')}"`;
const brandList = (list: Brand[] | undefined) => (list ?? []).map((b) => `${quoted(b.brand)};v=${quoted(b.version)}`).join(', ');
const flag = (b: boolean | undefined) => (b ? '?1' : '?0');

/** The value of each Sec-CH-UA header for some client hints, by lower-case header name. */
export function clientHintHeaders(m: Protocol.Emulation.UserAgentMetadata): Record<string, string> {
  return {
    'sec-ch-ua': brandList(m.brands),
    'sec-ch-ua-mobile': flag(m.mobile),
    'sec-ch-ua-platform': quoted(m.platform),
    'sec-ch-ua-platform-version': quoted(m.platformVersion),
    'sec-ch-ua-arch': quoted(m.architecture),
    'sec-ch-ua-bitness': quoted(m.bitness ?? ''),
    'sec-ch-ua-model': quoted(m.model),
    'sec-ch-ua-full-version': quoted(m.fullVersion ?? ''),
    'sec-ch-ua-full-version-list': brandList(m.fullVersionList),
    'sec-ch-ua-wow64': flag(m.wow64),
    'sec-ch-ua-form-factors': (m.formFactors ?? []).map(quoted).join(', '),
  };
}
