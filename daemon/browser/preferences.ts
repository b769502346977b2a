/**
 * Profile preferences written before every launch. Some behaviour has no working switch, only a preference:
 * WebRTC's UDP policy is one (--force-webrtc-ip-handling-policy is ignored by current Chromium), and WebRTC
 * UDP goes straight to any address, around the egress proxy. Merged into what the profile already holds, so
 * a user's own settings stay.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Dotted pref name -> value, each with the reason it is forced. */
export const FORCED_PREFERENCES: Record<string, unknown> = {
  // WebRTC may only use UDP through a proxy; an HTTP proxy carries no UDP, so no STUN/TURN packet leaves.
  'webrtc.ip_handling_policy': 'disable_non_proxied_udp',
  // No gathering over every interface (which would reveal and use routes the guard never sees).
  'webrtc.multiple_routes_enabled': false,
  'webrtc.nonproxied_udp_enabled': false,
  // No sign-in to Google: the profile belongs to the daemon's user, and sign-in (its account reconcilor)
  // fetches accounts.google.com. Chromium reads the "on next startup" value when it starts and copies it over.
  'signin.allowed': false,
  'signin.allowed_on_next_startup': false,
  // No search suggestions or URL-keyed data collection sent as the agent types or loads pages.
  'search.suggest_enabled': false,
  'url_keyed_anonymized_data_collection.enabled': false,
  // No "preload pages" guesses: they fetch sites nobody asked for.
  'net.network_prediction_options': 2,
  // Chromium's password manager must neither keep the passwords the vault fills (on disk, in its own store)
  // nor send them for leak checks (passwordsleakcheck-pa.googleapis.com after every sign-in).
  credentials_enable_service: false,
  'profile.password_manager_enabled': false,
  'profile.password_manager_leak_detection': false,
  // Nor may autofill keep a card number the vault filled.
  'autofill.credit_card_enabled': false,
  // Nor what was typed into any other field: with addresses on, Chromium saves every submitted text field's
  // value in its form-data ("autocomplete") table in Default/Web Data, and a value the vault filled into a
  // text field (an api_key, a password where the site uses no password field) stayed there in plain text.
  // autofill.enabled is the older switch for all of autofill, still read by Chromium when set.
  'autofill.profile_enabled': false,
  'autofill.enabled': false,
  // No automatic sign-in with credentials the password manager would have kept (it keeps none, see above).
  credentials_enable_autosignin: false,
  // No browsing history on disk: submitted pages and their addresses are the agent's work, not the user's
  // history to keep, and the session files below record the same navigations.
  'history.saving_disabled': true,
  // Start with a new tab, never the last session: tabs of the last run (with the bodies of the forms they
  // sent) are not brought back to be sent again.
  'session.restore_on_startup': 5,
  // chrome://inspect looks for debugging targets by connecting to the host:ports of this list (localhost:9222 and
  // :9229 by default) straight from the browser process, past the egress guard, whenever the page is open; an
  // attack once left the list pointing at a port of its choosing. Discovery off and the list empty, every launch.
  'devtools.discover_tcp_targets': false,
  'devtools.tcp_discovery_config': [],
  // Its USB discovery and port forwarding open local sockets (the adb server on loopback, forwarded ports) too.
  'devtools.discover_usb_devices': false,
  'devtools.port_forwarding_enabled': false,
  'devtools.port_forwarding_config': {},
  // Cast and DIAL device discovery (mDNS and SSDP multicast, then TCP to each device) goes around the proxy; the
  // media router is off by switch too (switches.ts), this is the preference its policy sets.
  'media_router.enable_media_router': false,
  'media_router.cast_allow_all_ips': false,
};

function setPath(obj: Record<string, any>, dotted: string, value: unknown) {
  const parts = dotted.split('.');
  let at = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof at[p] !== 'object' || at[p] === null || Array.isArray(at[p])) at[p] = {};
    at = at[p];
  }
  at[parts[parts.length - 1]!] = value;
}

/**
 * Session restore has no preference or switch that stops it writing: Chromium records every tab's navigations
 * in Default/Sessions/ as they happen, with the body a form sent by POST (it drops the body only when the form
 * had a password field), so a vault value filled into a text field and submitted rested there in plain text.
 * A plain read-only file where that folder would be leaves Chromium nowhere to write them: it opens nothing
 * and carries on. What an older run left (the folder, the pre-folder "Current/Last Session|Tabs") goes first.
 */
function blockSessionFiles(profileDir: string) {
  for (const old of ['Current Session', 'Current Tabs', 'Last Session', 'Last Tabs']) rmSync(join(profileDir, old), { force: true });
  const sessions = join(profileDir, 'Sessions');
  try {
    if (lstatSync(sessions).isFile()) return;
  } catch {
    // Not there yet: made below.
  }
  rmSync(sessions, { recursive: true, force: true });
  writeFileSync(sessions, '', { mode: 0o400 });
}

/** Writes FORCED_PREFERENCES into <userDataDir>/Default/Preferences, keeping every other setting; blocks session files. */
export function writeProfilePreferences(userDataDir: string): void {
  const dir = join(userDataDir, 'Default');
  const file = join(dir, 'Preferences');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let prefs: Record<string, any> = {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) prefs = parsed;
  } catch {
    // Missing (first launch) or unreadable: Chromium would start from defaults too.
  }
  for (const [name, value] of Object.entries(FORCED_PREFERENCES)) setPath(prefs, name, value);
  // Rename over the old file: a crash mid-write must not leave half a Preferences file.
  const tmp = `${file}.browserd-tmp`;
  writeFileSync(tmp, JSON.stringify(prefs), { mode: 0o600 });
  renameSync(tmp, file);
  blockSessionFiles(dir);
}
