/**
 * What a CDP session client may send. The client gets the user's own browser, so most of CDP is fine; what is
 * refused is what would reach past that browser: the host (files, devices, the command line), the daemon's
 * own state (its sessions, contexts, proxy setting) or the browser's life (close, crash).
 *
 * Domains are allowed by name (a domain Chromium adds later is refused until someone looks at it); inside an
 * allowed domain, single methods are refused or have their parameters checked.
 *
 * Browser-level commands from the client run on a browser session of its own (Target.attachToBrowserTarget),
 * not on the daemon's: Target.setAutoAttach, Target.setDiscoverTargets and the like change that session only,
 * so they are allowed and cannot switch off the daemon's own auto-attach.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { checkPageUrl, checkRequestUrl } from '../net/url-check.js';
import { own } from '../../protocol/own.js';

const ALLOWED_DOMAINS = new Set([
  'Accessibility', 'Animation', 'Audits', 'Autofill', 'BackgroundService', 'BluetoothEmulation', 'Browser', 'CacheStorage', 'CSS',
  'Console', 'Debugger', 'DeviceAccess', 'DeviceOrientation', 'DOM', 'DOMDebugger', 'DOMSnapshot', 'DOMStorage', 'Emulation',
  'EventBreakpoints', 'FedCm', 'Fetch', 'FileSystem', 'HeadlessExperimental', 'HeapProfiler', 'IndexedDB', 'Input', 'Inspector',
  'IO', 'LayerTree', 'Log', 'Media', 'Memory', 'Network', 'Overlay', 'Page', 'Performance', 'PerformanceTimeline', 'Preload',
  'Profiler', 'Runtime', 'Schema', 'Security', 'ServiceWorker', 'Storage', 'Target', 'Tracing', 'WebAudio', 'WebAuthn',
]);

/** Methods refused outright, with the reason the client is told. */
const REFUSED: Record<string, string> = {
  'Browser.close': 'the daemon runs this browser; end the session with browser_sessions{action:"stop"} instead',
  'Browser.crash': 'it would crash the user\'s browser',
  'Browser.crashGpuProcess': 'it would crash the user\'s browser',
  'Browser.getBrowserCommandLine': 'it shows how the daemon started Chromium',
  'Browser.executeBrowserCommand': 'browser UI commands are not available through the proxy',
  'Target.exposeDevToolsProtocol': 'it would hand CDP to a page',
  'Target.setRemoteLocations': 'it would point the browser at other debugging endpoints',
  'Target.attachToBrowserTarget': 'this connection already is a browser-level session of its own',
  'Target.sendMessageToTarget': 'only flat sessions are proxied: put sessionId on each message',
  'Target.openDevTools': 'DevTools windows are not available through the proxy',
  // Its interceptions answer from the client with no say of the daemon's: the Fetch domain does the same, checked.
  'Network.setRequestInterception': 'use the Fetch domain (Fetch.enable) to intercept requests',
};

export interface ClientScope {
  /** True for a session this client attached (or that was auto-attached under one of its sessions). */
  ownsSession(sessionId: string): boolean;
  /** True for a browser context this client created. */
  ownsContext(browserContextId: string): boolean;
  /** The user's files directory: the only place downloads and file inputs may use. */
  filesDir: string;
}

/** Why the client may not send this command, or undefined when it may. */
export function refusal(method: string, params: Record<string, any>, scope: ClientScope): string | undefined {
  const domain = method.split('.')[0];
  if (!ALLOWED_DOMAINS.has(domain)) return `the ${domain} domain is not available through the proxy (it reaches the host, not the page)`;
  const refused = own(REFUSED, method);
  if (refused) return refused;
  switch (method) {
    case 'Target.createBrowserContext':
      if (params.proxyServer !== undefined || params.proxyBypassList !== undefined) return "pages must go through the daemon's egress guard: a context may not set its own proxy";
      if (params.originsWithUniversalNetworkAccess !== undefined) return 'universal network access for origins is not available';
      return undefined;
    case 'Target.disposeBrowserContext':
      return scope.ownsContext(String(params.browserContextId)) ? undefined : 'only contexts this connection created may be disposed (the others hold the daemon\'s tabs)';
    case 'Target.attachToTarget':
      return params.flatten === true ? undefined : 'attach with flatten: true (only flat sessions are proxied)';
    case 'Target.setAutoAttach':
      return params.autoAttach && params.flatten !== true ? 'auto-attach with flatten: true (only flat sessions are proxied)' : undefined;
    case 'Target.detachFromTarget':
      if (typeof params.sessionId !== 'string') return 'name the sessionId to detach (only sessions this connection attached)';
      return scope.ownsSession(params.sessionId) ? undefined : 'that session is not one this connection attached';
    case 'Target.createTarget':
    case 'Page.navigate':
      return urlRefusal(params.url);
    case 'Fetch.continueRequest':
    case 'Network.continueInterceptedRequest':
      return params.url === undefined ? undefined : requestUrlRefusal(params.url);
    case 'Network.loadNetworkResource':
      return requestUrlRefusal(params.url);
    // Refusals about paths never name one: the daemon's directories are not the client's business.
    // Browser.setDownloadBehavior and Page.setDownloadBehavior are never refused: clients send one at connect with
    // a directory of their own (Playwright: a temporary folder on its machine), and paramsToSend() replaces
    // whatever they name with the daemon's own download setting (downloads.ts), so no path of theirs is used.
    case 'DOM.setFileInputFiles':
      return pathsRefusal(params.files, scope.filesDir);
    case 'Input.dispatchDragEvent':
      return pathsRefusal(params.data?.files, scope.filesDir);
    case 'DOM.getFileInfo':
      return 'it answers with a path on the daemon\'s host';
    case 'Tracing.start':
      if (params.tracingBackend === 'system') return 'system-wide tracing reaches past this browser';
      // A streamed trace opens with metadata that holds the browser's command line (its profile directory on the
      // daemon's host, the proxy's port), as Browser.getBrowserCommandLine would; events sent one by one do not.
      return params.transferMode === 'ReturnAsStream' ? 'a streamed trace carries the browser\'s command line: use transferMode "ReportEvents" (Tracing.dataCollected events)' : undefined;
    default:
      return undefined;
  }
}

/**
 * A page may be opened at web and inline addresses only: file:, chrome:, devtools: and about: pages reach the
 * host or the browser's insides. What cannot be read is refused (net/url-check.ts checkPageUrl).
 */
function urlRefusal(url: unknown): string | undefined {
  // No url: Chromium answers the missing parameter itself; an empty one is Chromium's about:blank.
  if (url === undefined || url === '') return undefined;
  const checked = checkPageUrl(url);
  return 'refused' in checked ? checked.refused : undefined;
}

function requestUrlRefusal(url: unknown): string | undefined {
  const checked = checkRequestUrl(url);
  return 'refused' in checked ? checked.refused : undefined;
}

/**
 * The parameters to send on for a command refusal() let through: an address is sent as the checker serialised
 * it, so Chromium opens what was checked rather than its own fix-up of the text (chrome://version:x); paths are
 * made absolute in the user's files directory, which clients name without knowing where it is.
 */
export function paramsToSend(method: string, params: Record<string, any>, filesDir: string, downloads?: DownloadSetting): Record<string, any> {
  if (method === 'Browser.setDownloadBehavior' && params.behavior !== 'deny') return downloadParams(params, filesDir, downloads);
  // Page's older form cannot name files by guid: with a watcher, client.ts sends it as Browser.setDownloadBehavior.
  if (method === 'Page.setDownloadBehavior' && params.behavior !== 'deny') return downloads ? downloadParams(params, filesDir, downloads) : { ...params, behavior: 'allow', downloadPath: filesDir };
  if (method === 'DOM.setFileInputFiles') return { ...params, files: absolute(params.files, filesDir) };
  if (method === 'Input.dispatchDragEvent' && params.data?.files) return { ...params, data: { ...params.data, files: absolute(params.data.files, filesDir) } };
  if ((method === 'Target.createTarget' || method === 'Page.navigate') && typeof params.url === 'string' && params.url !== '') {
    const checked = checkPageUrl(params.url);
    if ('url' in checked) return { ...params, url: checked.url };
  }
  if ((method === 'Fetch.continueRequest' || method === 'Network.continueInterceptedRequest' || method === 'Network.loadNetworkResource') && typeof params.url === 'string') {
    const checked = checkRequestUrl(params.url);
    if ('url' in checked) return { ...params, url: checked.url };
  }
  return params;
}

/** Where the daemon has Chromium put a browser's downloads (downloads.ts), when it watches them. */
export interface DownloadSetting {
  /** The browser's staging directory: files named by guid, moved into the user's files once complete. */
  stagingDir: string;
}

/**
 * A client's Browser.setDownloadBehavior that allows downloads, whatever path or behaviour it names, becomes the
 * daemon's own setting for that context: named by guid into the browser's staging directory, from where the
 * download watcher moves each finished file into the user's files under its cap and the user's quota. The
 * client's context and its wish for events are kept. Without a watcher, the user's files directory itself.
 */
function downloadParams(params: Record<string, any>, filesDir: string, downloads?: DownloadSetting): Record<string, any> {
  const keep = {
    ...(params.browserContextId !== undefined ? { browserContextId: params.browserContextId } : {}),
    ...(params.eventsEnabled !== undefined ? { eventsEnabled: params.eventsEnabled } : {}),
  };
  if (downloads) return { behavior: 'allowAndName', downloadPath: downloads.stagingDir, ...keep };
  return { behavior: params.behavior === 'allowAndName' ? 'allowAndName' : 'allow', downloadPath: filesDir, ...keep };
}

/** A path inside `dir`: an absolute one, or a name relative to it (report.pdf, which the client can know). */
function inside(dir: string, p: unknown): boolean {
  if (typeof p !== 'string' || p === '') return false;
  const rel = relative(resolve(dir), resolve(dir, p));
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

function pathsRefusal(files: unknown, dir: string): string | undefined {
  if (!Array.isArray(files)) return undefined;
  return files.every((f) => inside(dir, f)) ? undefined : 'files must be in the user\'s files, named relative to them (report.pdf)';
}

/** The files of a command as absolute paths in the user's files directory (refusal() has checked they are inside). */
function absolute(files: unknown, dir: string): unknown {
  return Array.isArray(files) ? files.map((f) => (typeof f === 'string' ? resolve(dir, f) : f)) : files;
}
