/**
 * GET /live/{token}: the viewer page. Served only for a link that still opens, with a CSP that lets exactly
 * its own inline script and style run, talks only to this daemon, and may be framed only by this daemon's own
 * pages (the hand-off page embeds it). The token never leaves in a Referer, and no cache keeps the page.
 */
import { createHash } from 'node:crypto';
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import { send, type Req } from '../http/exchange.js';
import { VIEWER_SCRIPT } from './viewer-script.js';

const STYLE = `
*{box-sizing:border-box}html,body{margin:0;height:100%;background:#202124;color:#e8eaed;font:13px system-ui,sans-serif}
body{display:flex;flex-direction:column}
#bar{display:flex;gap:6px;align-items:center;padding:6px;background:#303134}
#bar button{background:#3c4043;color:#e8eaed;border:0;border-radius:4px;padding:4px 8px;cursor:pointer}
#bar button:disabled{opacity:.4;cursor:default}
#go{flex:1;display:flex}#addr{flex:1;background:#202124;color:#e8eaed;border:1px solid #5f6368;border-radius:4px;padding:4px 8px}
#tabs{display:flex;gap:4px;padding:4px 6px 0;background:#303134;overflow-x:auto}
.tab{background:#3c4043;color:#e8eaed;border:0;border-radius:6px 6px 0 0;padding:4px 10px;white-space:nowrap;cursor:pointer}
.tab.front{background:#202124}
#stage{flex:1;display:flex;align-items:center;justify-content:center;overflow:hidden}
#screen{outline:none;background:#fff}body[data-mode=view] #screen{cursor:default}
#status{padding:3px 8px;background:#303134;color:#9aa0a6;min-height:1.6em}
`;

const BODY = `<div id="tabs"></div>
<div id="bar"><button id="back" class="act" title="Back" disabled>◀</button><button id="forward" class="act" title="Forward" disabled>▶</button><button id="reload" class="act" title="Reload" disabled>⟳</button>
<form id="go"><input id="addr" class="act" autocomplete="off" spellcheck="false" aria-label="Address" disabled></form></div>
<div id="stage"><canvas id="screen" tabindex="0" width="0" height="0"></canvas></div>
<div id="status">Connecting…</div>`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export const VIEWER_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Live browser</title><style>${STYLE}</style></head><body data-mode="view">${BODY}<script>${VIEWER_SCRIPT}</script></body></html>`;

/** 'self' covers this daemon's ws: and wss: (CSP level 3), so the page can reach its socket and nothing else. */
export const VIEWER_CSP = [
  "default-src 'none'",
  `script-src ${sha256(VIEWER_SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  'img-src data:',
  "connect-src 'self'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export const VIEWER_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': VIEWER_CSP,
  'X-Frame-Options': 'SAMEORIGIN',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export async function serveViewerPage(env: Platform, r: Req, token: string) {
  const link = env.live.lookup(token);
  // A disabled account's links stop working at once, as its token does.
  if (!link || !env.users.isActive(link.user)) throw new BrowserdError('not_found', 'this live link is unknown or has expired', { next: 'Ask for a new link (browser_viewer).' });
  send(r, 200, VIEWER_HTML, VIEWER_HEADERS);
}
