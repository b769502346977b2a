/**
 * Chromium command-line switches, one reason per flag. The browser must call no one on its own: this machine
 * (and many hosts) has no route out, and a user's browser phoning home is not what they signed up for.
 */
import { egressProxySwitch } from '../net/egress-proxy.js';
import { own } from '../../protocol/own.js';

export interface SwitchOptions {
  userDataDir: string;
  headless: boolean;
  /** The daemon's egress proxy (private-network guard); undefined only in tests of the raw launcher. */
  proxyPort?: number;
  /** Extra switches, e.g. --host-resolver-rules in tests. */
  extra?: string[];
  windowSize?: { width: number; height: number };
}

/**
 * A name that fails inside Chromium: its resolver maps it to "not found" and the proxy is bypassed for it, so
 * a request there ends before any packet leaves (no DNS query, no proxy connection). Chromium's own calls
 * that no switch turns off are pointed here.
 */
export const SINK_DOMAIN = 'browserd.invalid';

/**
 * Google's download hosts for Chromium's own components and models (redirector.gvt1.com/edgedl/...). A full
 * test run once saw Chromium try redirector.gvt1.com although component updates and model downloads are off;
 * which part of Chromium asked is not known, so these names fail inside Chromium like the sink.
 */
const CHROMIUM_DOWNLOAD_HOSTS = ['*.gvt1.com', '*.gvt2.com'];
const SINKED = [`*.${SINK_DOMAIN}`, ...CHROMIUM_DOWNLOAD_HOSTS];

const DISABLED_FEATURES = [
  // Background fetches and UI we cannot drive headless.
  'Translate', 'OptimizationHints', 'MediaRouter', 'DialMediaRouteProvider', 'CalculateNativeWinOcclusion',
  'InterestFeedContentSuggestions', 'CertificateTransparencyComponentUpdater', 'AutofillServerCommunication',
  'PrivacySandboxSettings4', 'HttpsUpgrades',
  // The clock check against clients2.google.com/time at start-up.
  'NetworkTimeServiceQuerying',
  // On-device model downloads (the optimization guide's model manifest and the models it lists).
  'OptimizationGuideModelDownloading', 'OptimizationGuideOnDeviceModel',
  // WebRTC would announce .local names for host candidates over mDNS multicast; there are none to hide
  // (non-proxied UDP is off, see preferences.ts), and nothing may be multicast on the user's network.
  'WebRtcHideLocalIpsWithMdns',
  // The address bar's suggestion popups are web pages (chrome://omnibox-popup.top-chrome), built for every new
  // window although no one ever types in its address bar here. Every tab has a window of its own (instance.ts),
  // so each open loaded ~180 of their scripts: most of a new tab's CPU, and a ~100 MB renderer kept for them.
  'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup',
  // Cast device discovery and Cast channels (mDNS multicast, TCP 8009 to each device) open their own sockets,
  // around the egress proxy; MediaRouter and DialMediaRouteProvider above stop the rest of the media router.
  'CastMediaRouteProvider',
  // Chromium's built-in DNS client sends its own UDP to the name servers and, in "automatic" secure DNS, probes
  // and uses DNS-over-HTTPS servers it recognises: connections the guard never sees. Page requests are resolved
  // by the egress proxy anyway; what Chromium still resolves (the sink names) stays with the host resolver rules
  // and the system's resolver.
  'AsyncDns',
];

/** Switches whose values are lists: ours and the caller's extra ones are merged into one switch each. */
const LIST_SWITCHES: Record<string, string> = {
  '--disable-features': ',',
  '--enable-features': ',',
  '--host-resolver-rules': ',',
  '--proxy-bypass-list': ';',
};

export function chromiumSwitches(o: SwitchOptions): string[] {
  const size = o.windowSize ?? { width: 1280, height: 900 };
  const lists: Record<string, string[]> = {
    '--disable-features': [...DISABLED_FEATURES],
    '--enable-features': [],
    // The sink fails at once, before any rule of the caller (tests map * to ~NOTFOUND too, but not always).
    '--host-resolver-rules': SINKED.map((h) => `MAP ${h} ~NOTFOUND`),
    '--proxy-bypass-list': [],
  };
  const s = [
    `--user-data-dir=${o.userDataDir}`,
    // CDP over file descriptors 3 and 4 only: a TCP port, even on loopback, lets any local process attach.
    '--remote-debugging-pipe',
    // No network calls of Chromium's own: background fetches, component and safe-browsing updates, sync,
    // metrics/crash uploads, first-run checks, the default-browser prompt, domain reliability beacons.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--metrics-recording-only',
    '--disable-breakpad',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--safebrowsing-disable-auto-update',
    '--no-first-run',
    '--no-default-browser-check',
    '--no-service-autorun',
    '--no-pings',
    '--password-store=basic',
    '--use-mock-keychain',
    // Features as the code defines them, not as a bundled field-trial config flips them (some of which fetch).
    '--disable-field-trial-config',
    // The component updater still checks on demand (the on-device model manifest) despite
    // --disable-component-update: its server is the sink.
    `--component-updater=url-source=https://updates.${SINK_DOMAIN}/`,
    // Every profile lists the Google accounts in its cookie jar (accounts.google.com/ListAccounts) once its
    // network is up, whatever the sign-in switches and preferences say; that endpoint is the sink. Pages
    // can still sign in to Google sites as on any other site.
    `--gaia-url=https://gaia.${SINK_DOMAIN}`,
    // Keep timers and rendering running in background tabs: agents act on tabs that are not in front.
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    '--disable-ipc-flooding-protection',
    // Popups become tabs we can see and govern (they are still subject to the tab's mode).
    '--disable-popup-blocking',
    '--disable-prompt-on-repost',
    '--disable-hang-monitor',
    // Small /dev/shm in containers makes the renderer crash on large pages.
    '--disable-dev-shm-usage',
    `--window-size=${size.width},${size.height}`,
    // QUIC would bypass the HTTP proxy (it is UDP): everything must pass the egress guard.
    '--disable-quic',
    // Never bring back the last run's tabs: a restored tab could send the body of a form again, vault values in
    // it. (Session files are not written at all: preferences.ts leaves them nowhere to go.)
    '--disable-restore-session-state',
  ];
  if (o.headless) s.push('--headless=new', '--hide-scrollbars', '--mute-audio');
  if (o.proxyPort) {
    s.push(egressProxySwitch(o.proxyPort));
    // Chromium bypasses the proxy for loopback unless told not to; the guard must see loopback too. The sink
    // goes direct, to fail in Chromium's resolver instead of reaching the guard as an attempt.
    lists['--proxy-bypass-list']!.push('<-loopback>', ...SINKED);
    // The network stack inside the browser process: the proxy admits a connection only when the kernel says
    // the browser process holds its client socket (net/peer-process.ts). A separate (sandboxed, undumpable)
    // network process would hide its sockets from that check.
    lists['--enable-features']!.push('NetworkServiceInProcess2');
    // (WebRTC's UDP policy is a profile preference, written by preferences.ts: its switch has no effect.)
  }
  // Chromium will not start its sandbox as root; `browserd serve` warns loudly about it (bin/serve.ts).
  if (typeof process.getuid === 'function' && process.getuid() === 0) s.push('--no-sandbox');
  // Chromium keeps only the last copy of a switch: merge list switches from `extra` into ours.
  for (const arg of o.extra ?? []) {
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const sep = own(LIST_SWITCHES, name);
    if (sep && eq > 0) lists[name]!.push(...arg.slice(eq + 1).split(sep).map((x) => x.trim()).filter(Boolean));
    else s.push(arg);
  }
  for (const [name, values] of Object.entries(lists)) if (values.length) s.push(`${name}=${values.join(own(LIST_SWITCHES, name)!)}`);
  // No window at start: every tab gets a window of its own when it is asked for (instance.ts). A start-up
  // about:blank page kept a renderer of its own, ~25 MB per user's browser for a page no one ever used, and
  // without a URL Chromium would open its new-tab page, which fetches.
  s.push('--no-startup-window');
  return s;
}
