/**
 * Chromium's --host-resolver-rules ("MAP name ip", "MAP *.test 127.0.0.1", "MAP * ~NOTFOUND"), applied by the
 * egress proxy too: with a proxy, Chromium hands names to the proxy, so the proxy must map them the same way.
 * Tests use this to point names at the loopback fixture (the rebinding case) and to make sure nothing asks DNS.
 */
import dns from 'node:dns/promises';
import { isIP } from 'node:net';

interface Rule { pattern: RegExp; target: string | 'NOTFOUND' | 'EXCLUDE' }

const glob = (p: string) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');

export function parseResolverRules(chromeArgs: string[]): Rule[] {
  const arg = chromeArgs.find((a) => a.startsWith('--host-resolver-rules='));
  if (!arg) return [];
  const rules: Rule[] = [];
  for (const part of arg.slice('--host-resolver-rules='.length).split(',')) {
    const ex = /^\s*EXCLUDE\s+(\S+)\s*$/i.exec(part);
    // Chromium applies EXCLUDE before any MAP: put them first so the first matching rule decides.
    if (ex) rules.unshift({ pattern: glob(ex[1]), target: 'EXCLUDE' });
    const m = /^\s*MAP\s+(\S+)\s+(\S+)\s*$/i.exec(part);
    if (m) rules.push({ pattern: glob(m[1]), target: m[2] === '~NOTFOUND' ? 'NOTFOUND' : m[2].replace(/:\d+$/, '') });
  }
  return rules;
}

export function lookupWithRules(rules: Rule[]) {
  return async (host: string): Promise<{ address: string; family: number }[]> => {
    for (const r of rules) {
      if (!r.pattern.test(host)) continue;
      if (r.target === 'EXCLUDE') break;
      if (r.target === 'NOTFOUND') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      const ip = r.target.replace(/^\[|\]$/g, '');
      return [{ address: ip, family: isIP(ip) || 4 }];
    }
    return dns.lookup(host, { all: true, verbatim: true });
  };
}
