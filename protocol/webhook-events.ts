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

/** What the REST routes do with receivers (daemon/webhooks/service.ts implements both interfaces). */
export interface WebhookReceivers {
  /** Registers a receiver ({url, events?}); the only answer that ever carries its secret. */
  register(user: string, body: unknown): Promise<{ id: string; url: string; events: string[]; createdAt: string; secret: string }>;
  list(user: string): { id: string; url: string; events: string[]; createdAt: string; pending: number }[];
  delete(user: string, id: string): Promise<void>;
  deliveries(user: string, id: string, opts: { limit: number; state?: 'pending' | 'delivered' | 'failed' }): unknown[];
}
