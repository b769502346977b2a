/**
 * Chromium command-line switches, one reason per flag. The browser must call no one on its own: this machine
 * (and many hosts) has no route out, and a user's browser phoning home is not what they signed up for.
 */
export interface SwitchOptions {
  userDataDir: string;
  headless: boolean;
  /** The daemon's egress proxy (private-network guard); undefined only in tests of the raw launcher. */
  proxyPort?: number;
  /** Extra switches, e.g. --host-resolver-rules in tests. */
  extra?: string[];
  windowSize?: { width: number; height: number };
}

export function chromiumSwitches(o: SwitchOptions): string[] {
  const size = o.windowSize ?? { width: 1280, height: 900 };
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
    // Features that fetch things in the background or show UI we cannot drive headless.
    '--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,CalculateNativeWinOcclusion,InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater,AutofillServerCommunication,PrivacySandboxSettings4,HttpsUpgrades',
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
  ];
  if (o.headless) s.push('--headless=new', '--hide-scrollbars', '--mute-audio');
  if (o.proxyPort) {
    s.push(`--proxy-server=http://127.0.0.1:${o.proxyPort}`);
    // The network stack inside the browser process: the proxy admits a connection only when the kernel says
    // the browser process holds its client socket (net/peer-process.ts). A separate (sandboxed, undumpable)
    // network process would hide its sockets from that check.
    s.push('--enable-features=NetworkServiceInProcess2');
    // Chromium bypasses the proxy for loopback unless told not to; the guard must see loopback too.
    s.push('--proxy-bypass-list=<-loopback>');
    // WebRTC would otherwise open UDP straight to any address, around the proxy.
    s.push('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  }
  // The setuid sandbox cannot start as root (a common server setup); the renderer still runs unprivileged-ish.
  if (typeof process.getuid === 'function' && process.getuid() === 0) s.push('--no-sandbox');
  if (o.extra) s.push(...o.extra);
  // Start on a blank page: no network before a tab is asked for.
  s.push('about:blank');
  return s;
}
