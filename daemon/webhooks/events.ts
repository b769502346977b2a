/**
 * The signed-callback events and the one call other parts make to send them. Kept apart from the service so a
 * part that only emits (monitors, recordings, replays, tasks, downloads, hand-offs) imports just this shape.
 */

export const WEBHOOK_EVENTS = ['monitor.changed', 'recording.finished', 'replay.finished', 'task.finished', 'download.finished', 'handoff.finished'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

// env.webhooks: started at boot (due rows go out at start), stopped on shutdown.
export interface Webhooks {
  /** Queues the event for each of the user's receivers that take it; resolves once the rows are durable (flushed). */
  emit(user: string, type: WebhookEvent, data: Record<string, unknown>): Promise<void>;
}
