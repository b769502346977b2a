/** The write guard's verdict on one paused request: which requests may leave a tab, and why not. */
import t from 'tap';
import { WriteGuard } from '../../../daemon/browser/write-guard.js';
import type { CdpConnection } from '../../../daemon/cdp/connection.js';

const policy: Record<string, 'read_only' | 'blocked'> = { 'ro.example': 'read_only', 'bad.example': 'blocked' };
const hostAccess = (url: string) => policy[new URL(url).hostname] ?? 'default';
const guardFor = (mode: 'read' | 'act', url = 'https://site.example/', allowedDomains?: string[]) =>
  new WriteGuard({} as CdpConnection, { mode, url, allowedDomains, logEvent: () => undefined }, { hostAccess });
const req = (method: string, url: string, resourceType = 'Fetch') => ({ requestId: '1', request: { method, url }, resourceType });

t.test('read tabs send only GET, HEAD and OPTIONS', async (t) => {
  const g = guardFor('read');
  for (const m of ['GET', 'HEAD', 'OPTIONS']) t.equal((await g.verdict(req(m, 'https://site.example/api'))), undefined, m);
  for (const m of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) t.equal((await g.verdict(req(m, 'https://site.example/api')))?.kind, 'write_blocked', m);
});

t.test('act tabs write, except to a read-only site or from a read-only site\'s page', async (t) => {
  t.equal((await guardFor('act').verdict(req('POST', 'https://site.example/api'))), undefined);
  t.match((await guardFor('act').verdict(req('POST', 'https://ro.example/api')))?.detail, /read-only/);
  t.match((await guardFor('act', 'https://ro.example/page').verdict(req('POST', 'https://site.example/api')))?.detail, /read-only/);
});

t.test('documents: blocked hosts and addresses outside allowedDomains are not loaded', async (t) => {
  t.equal((await guardFor('act').verdict(req('GET', 'https://bad.example/', 'Document')))?.kind, 'navigation_blocked');
  const limited = guardFor('read', 'https://site.example/', ['site.example']);
  t.equal((await limited.verdict(req('GET', 'https://sub.site.example/', 'Document'))), undefined, 'sub-domains are allowed');
  t.equal((await limited.verdict(req('GET', 'https://other.example/', 'Document')))?.kind, 'navigation_blocked');
  t.equal((await limited.verdict(req('GET', 'https://other.example/img.png', 'Image'))), undefined, 'subresources are not navigations');
});
