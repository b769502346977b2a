/**
 * The MCP SDK transport answers every POST as a Server-Sent Events stream (the request's notifications, then its
 * answer). The gateway gives the client its own JSON-RPC ids back in either of two forms:
 * - the stream itself, event by event, when the client asked for progress (a progressToken), so the
 *   notifications reach it while the call runs;
 * - one JSON answer otherwise: cheaper for the client to read, and what most clients expect.
 */

type JsonRpcId = string | number | null;

/** Puts the client's id back on a message that carries one of ours. */
export function restoreId(m: unknown, inflight: Map<string, JsonRpcId>): void {
  if (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string') {
    const ours = (m as { id: string }).id;
    if (inflight.has(ours)) (m as { id: JsonRpcId }).id = inflight.get(ours)!;
  }
}

/** Whether any request in a POST body asks for progress reports. */
export function asksForProgress(parsed: unknown): boolean {
  return (Array.isArray(parsed) ? parsed : [parsed]).some((m) => {
    const token = m && typeof m === 'object' ? (m as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken : undefined;
    return typeof token === 'string' || typeof token === 'number';
  });
}

/** The data of each complete event in `text`, and what is left over (an event not yet ended). */
export function splitEvents(text: string): { data: string[]; rest: string } {
  const data: string[] = [];
  const blocks = text.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const lines = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (lines.length) data.push(lines.join('\n'));
  }
  return { data, rest };
}

/** The answers (not notifications) in a whole SSE body, with the client's ids, as one JSON text. */
export function collapseToJson(body: string, inflight: Map<string, JsonRpcId>): string | undefined {
  const answers: unknown[] = [];
  for (const d of splitEvents(`${body}\n\n`).data) {
    try {
      const m = JSON.parse(d);
      if (m && typeof m === 'object' && 'id' in m && ('result' in m || 'error' in m)) {
        restoreId(m, inflight);
        answers.push(m);
      }
    } catch {
      // Not JSON: nothing a client could use.
    }
  }
  if (!answers.length) return undefined;
  return JSON.stringify(answers.length === 1 ? answers[0] : answers);
}

/** One event re-written with the client's ids (the event's other lines are not needed by clients). */
export function rewriteEvent(data: string, inflight: Map<string, JsonRpcId>): string {
  try {
    const m = JSON.parse(data);
    if (Array.isArray(m)) m.forEach((x) => restoreId(x, inflight));
    else restoreId(m, inflight);
    return `event: message\ndata: ${JSON.stringify(m)}\n\n`;
  } catch {
    return `event: message\ndata: ${data}\n\n`;
  }
}
