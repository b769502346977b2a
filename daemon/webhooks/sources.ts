/**
 * What the events of today's sources carry: a hand-off that ended (resolved or expired) and a page download
 * that ended (stored, cancelled, too large or failed). Only what a receiver needs to act; never a token.
 */
import type { HandoffRecord } from '../../storage/handoffs.js';
import type { DownloadOutcome } from '../browser/downloads.js';

export function handoffEventData(rec: HandoffRecord): Record<string, unknown> {
  return {
    id: rec.id,
    status: rec.status,
    reason: rec.reason,
    createdAt: rec.createdAt,
    ...(rec.tab ? { tab: rec.tab } : {}),
    ...(rec.resolvedBy ? { resolvedBy: rec.resolvedBy } : {}),
    ...(rec.resolvedAt ? { resolvedAt: rec.resolvedAt } : {}),
    ...(rec.status === 'expired' ? { expiredAt: rec.expiresAt } : {}),
    ...(rec.note !== undefined ? { note: rec.note } : {}),
  };
}

export function downloadEventData(o: DownloadOutcome): Record<string, unknown> {
  return {
    state: o.state,
    url: o.url,
    suggestedName: o.suggestedName,
    ...(o.tab ? { tab: o.tab } : {}),
    ...(o.file ? { file: { name: o.file.name, size: o.file.size, mimeType: o.file.mimeType, sha256: o.file.sha256 } } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
  };
}
