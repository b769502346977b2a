/**
 * `snapshot: true` on a tool that acts on a page: the answer carries the page's snapshot as it stands after the
 * action, so an agent that would look next anyway saves a browser_snapshot call. A tool takes the option by
 * putting SnapshotAfterParam in its input and withSnapshotAfter() around its output; the call pipeline
 * (dispatch.ts) writes the snapshot once the handler has run, on the tab the call acted on.
 */
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { ResponseBuilder } from '../call/response.js';
import type { ToolContext } from '../call/context.js';
import { writeSnapshot } from './snapshot.js';
import { UrlField } from '../call/output.js';

/** Explained once in the MCP server's instructions, with the other parameters many tools share. */
export const SnapshotAfterParam = Type.Optional(Type.Boolean());

/** A tool's output with the fields the snapshot sets (writeSnapshot: tab, url, refCount) that it lacks. */
export function withSnapshotAfter<P extends TProperties>(output: TObject<P>) {
  return Type.Object({
    url: Type.Optional(UrlField),
    ...output.properties,
    refCount: Type.Optional(Type.Integer({ description: 'With snapshot: true, how many element refs the snapshot hands out.' })),
  });
}

/** Whether a tool takes the option: its input schema names it. */
export function takesSnapshotAfter(input: unknown): boolean {
  const props = (input as { properties?: Record<string, unknown> }).properties;
  return !!props && Object.prototype.hasOwnProperty.call(props, 'snapshot');
}

/**
 * After a handler ran: the snapshot of the tab it acted on, when the caller asked and the tool takes the
 * option. An answer that waits on a person (approval) has no page to show yet, so it gets none.
 */
export async function answerWithSnapshot(ctx: ToolContext, input: unknown, args: Record<string, unknown>, out: ResponseBuilder): Promise<void> {
  if (args.snapshot !== true || out.approval || !takesSnapshotAfter(input)) return;
  const tab = ctx.touched[0];
  if (!tab) return;
  await writeSnapshot(tab, out, {});
}
