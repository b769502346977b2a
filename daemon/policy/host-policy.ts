/**
 * Per-user host policy: host patterns that are read-only, blocked or explicitly allowed. Pure functions over
 * a rule list; where the rules are stored and how they are edited is someone else's job.
 *
 * Resolution: the most specific matching pattern wins (more labels = more specific, `*` least of all), so
 * `mail.example.com: allowed` can carve an exception out of `example.com: read_only`. Between equally
 * specific patterns the stricter access wins (blocked, then read_only, then allowed): two rules that disagree
 * must never fail open.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { hostMatches, normaliseHost } from './url-rules.js';
import { parseHostAsIp } from '../net/address.js';

export type HostAccess = 'read_only' | 'blocked' | 'allowed';
export const HOST_ACCESS: readonly HostAccess[] = ['read_only', 'blocked', 'allowed'];

export interface HostRule {
  /** `example.com` (the domain and its sub-domains), `*.example.com` (sub-domains only), or `*`. */
  pattern: string;
  access: HostAccess;
}

const STRICTNESS: Record<HostAccess, number> = { blocked: 2, read_only: 1, allowed: 0 };

/** How specific a pattern is: the number of labels it names (`*` names none). */
export function patternSpecificity(pattern: string): number {
  const p = pattern.trim();
  if (p === '*') return 0;
  const base = normaliseHost(p.startsWith('*.') ? p.slice(2) : p);
  // An IP literal is one exact host: as specific as anything can be.
  if (parseHostAsIp(base)) return Number.MAX_SAFE_INTEGER;
  return base.split('.').filter(Boolean).length;
}

/** The host a URL is about; a bare host is taken as it is. Undefined for pages with no host (about:blank). */
function hostOf(urlOrHost: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(urlOrHost);
  } catch {
    return urlOrHost.trim() || undefined;
  }
  if (parsed.protocol === 'blob:') return hostOf(parsed.pathname);
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) {
    // "example.com:8080" parses as a URL with scheme "example.com:"; treat such input as a host.
    return /^\d+$/.test(parsed.pathname) ? parsed.protocol.slice(0, -1) : undefined;
  }
  return parsed.hostname || undefined;
}

/**
 * The access the user's rules give `url` (a URL or a bare host), or 'default' when no rule matches (the tab's
 * own mode then decides).
 */
export function evaluateHostPolicy(rules: readonly HostRule[], url: string): HostAccess | 'default' {
  const host = hostOf(url);
  if (!host) return 'default';
  let best: HostRule | undefined;
  let bestScore = -1;
  for (const rule of rules) {
    if (!hostMatches(host, rule.pattern)) continue;
    const score = patternSpecificity(rule.pattern);
    if (score > bestScore || (score === bestScore && STRICTNESS[rule.access] > STRICTNESS[best!.access])) {
      best = rule;
      bestScore = score;
    }
  }
  return best ? best.access : 'default';
}

// A label: letters (any script: IDN patterns may be typed in Unicode), digits, hyphens inside.
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;
const MAX_RULES = 1000;

/** Why a pattern is not usable, or undefined when it is fine. */
export function patternProblem(pattern: string): string | undefined {
  const p = pattern.trim();
  if (p === '*') return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p) || /[/?#@\s]/.test(p)) return 'must be a host name such as example.com or *.example.com, not a URL';
  const base = p.startsWith('*.') ? p.slice(2) : p;
  if (base.includes('*')) return 'may use * only as a whole first label (*.example.com) or alone (*)';
  if (parseHostAsIp(base) !== undefined) {
    if (p.startsWith('*.')) return 'cannot put *. before an IP address';
    // Stored rules are read by people: one spelling per address.
    if (!base.includes(':') && !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(base)) return 'spells an IP address in a short or numeric form; write it as a.b.c.d';
    return undefined;
  }
  if (base.includes(':')) return 'must not carry a port';
  const labels = (base.endsWith('.') ? base.slice(0, -1) : base).split('.');
  if (base.length > 253 || labels.some((l) => !LABEL.test(l))) return 'is not a valid host name';
  return undefined;
}

/**
 * Problems with a rule list, as validation_error messages naming the rule (`rules[2].access ...`).
 * An empty array means the list is fine. Unknown keys are named together with the accepted ones.
 */
export function validateHostRules(rules: unknown): string[] {
  if (!Array.isArray(rules)) return ['rules must be an array of {pattern, access}'];
  const errors: string[] = [];
  if (rules.length > MAX_RULES) errors.push(`at most ${MAX_RULES} rules are accepted (got ${rules.length})`);
  const seen = new Map<string, number>();
  rules.forEach((rule: unknown, i) => {
    const at = `rules[${i}]`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
      errors.push(`${at} must be an object {pattern, access}`);
      return;
    }
    const r = rule as Record<string, unknown>;
    const unknown = Object.keys(r).filter((k) => k !== 'pattern' && k !== 'access');
    if (unknown.length) errors.push(`${at} has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; accepted keys are pattern, access`);
    if (typeof r.pattern !== 'string' || r.pattern.trim() === '') errors.push(`${at}.pattern must be a non-empty string such as example.com or *.example.com`);
    else {
      const problem = patternProblem(r.pattern);
      if (problem) errors.push(`${at}.pattern ${JSON.stringify(r.pattern)} ${problem}`);
      else {
        const p = r.pattern.trim();
        // Compared in canonical form: "Example.com." and "example.com" are the same rule.
        const key = p === '*' ? '*' : p.startsWith('*.') ? `*.${normaliseHost(p.slice(2))}` : normaliseHost(p);
        const first = seen.get(key);
        if (first !== undefined) errors.push(`${at}.pattern ${JSON.stringify(r.pattern)} repeats rules[${first}]; keep one rule per pattern`);
        else seen.set(key, i);
      }
    }
    if (!HOST_ACCESS.includes(r.access as HostAccess)) {
      errors.push(`${at}.access must be one of ${HOST_ACCESS.join(', ')} (got ${JSON.stringify(r.access)})`);
    }
  });
  return errors;
}

/** The rule list, checked; throws validation_error listing every problem. Patterns are returned trimmed. */
export function assertHostRules(rules: unknown): HostRule[] {
  const errors = validateHostRules(rules);
  if (errors.length) {
    throw new BrowserdError('validation_error', errors.join('; '), {
      next: 'Give rules as [{"pattern": "example.com", "access": "read_only"}]; access is read_only, blocked or allowed.',
      details: { errors },
    });
  }
  return (rules as HostRule[]).map((r) => ({ pattern: r.pattern.trim(), access: r.access }));
}
