/**
 * The markers around page text, in one place: `<<<page N>>>` (or `<<<page N source="...">>>`) opens a fence,
 * `<<<end N>>>` closes it, N being a nonce drawn fresh for each answer. The markers are kept short because
 * every answer with page text pays for them. The nonce is 48 random bits: a page cannot guess it, and it is
 * only the second layer anyway, since page text inside a fence has every `<<<` and `>>>` neutralised
 * (trusted-text.ts), whatever nonce it tries.
 */
import { randomBytes } from 'node:crypto';

/** A fresh nonce for one answer's fences: 12 hex characters. */
export function fenceNonce(): string {
  return randomBytes(6).toString('hex');
}

/** The opening marker; `attrs` (ours, never page words) follows the nonce after a space. */
export function fenceOpen(nonce: string, attrs = ''): string {
  return `<<<page ${nonce}${attrs ? ` ${attrs}` : ''}>>>`;
}

/** The closing marker. */
export function fenceClose(nonce: string): string {
  return `<<<end ${nonce}>>>`;
}
