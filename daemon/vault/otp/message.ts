/**
 * One message from any inbox, reduced to what deciding on a code needs, and that decision: the sender filter,
 * "is it about the site", then the code itself (text part first, then the HTML part as text).
 */
import { extractCode } from './extract-code.js';
import { htmlToText } from './html-text.js';
import { mentionsSite, type SiteTerms } from './about-site.js';

export interface InboxMessage {
  /** The From header as text ("Example <no-reply@example.com>"), or the SMS sender. */
  from: string;
  subject: string;
  text: string;
  html?: string;
}

export interface CodeRule {
  terms: SiteTerms;
  /** Substring of the sender, case-insensitive. */
  from?: string;
}

/** The code in a message that passes the rule, or undefined. */
export function codeFrom(msg: InboxMessage, rule: CodeRule): string | undefined {
  if (rule.from && !msg.from.toLowerCase().includes(rule.from.toLowerCase())) return undefined;
  const htmlText = msg.html ? htmlToText(msg.html) : '';
  if (!mentionsSite([msg.from, msg.subject, msg.text, htmlText].join('\n'), rule.terms)) return undefined;
  for (const body of [msg.text, htmlText]) {
    if (!body.trim()) continue;
    const code = extractCode(`${msg.subject}\n${body}`);
    if (code) return code;
  }
  return msg.subject ? extractCode(msg.subject) : undefined;
}
