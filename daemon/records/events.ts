/** The data of recording.finished and replay.finished: ids, states and counts, never arguments or page text. */
import type { Recording, Replay } from '../../storage/records.js';

export function recordingEvent(rec: Recording): Record<string, unknown> {
  return {
    id: rec.id,
    ...(rec.name ? { name: rec.name } : {}),
    state: rec.state,
    tab: rec.tab,
    steps: rec.steps,
    stopReason: rec.stopReason,
    ...(rec.videoFile ? { videoFile: rec.videoFile } : {}),
    createdAt: rec.createdAt,
    stoppedAt: rec.stoppedAt,
  };
}

export function replayEvent(r: Replay): Record<string, unknown> {
  return {
    id: r.id,
    recording: r.recording,
    state: r.state,
    cache: r.cache,
    steps: r.steps.length,
    failed: r.steps.filter((s) => !s.skipped && s.outcome !== 'ok').length,
    ...(r.error ? { error: r.error } : {}),
    finishedAt: r.finishedAt,
  };
}
