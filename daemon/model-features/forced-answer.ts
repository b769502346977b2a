/**
 * One structured answer by a forced tool call: the model must call `tool.name`, its arguments are checked by
 * `parse`, and an answer that is not usable gets one repair turn saying what was wrong, then action_failed.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { ModelSession } from '../models/session.js';
import type { ChatMessage, ToolSpec } from '../models/types.js';

export async function forcedAnswer<T>(session: ModelSession, req: { system: string; user: string; tool: ToolSpec; maxOutputTokens?: number }, parse: (args: Record<string, unknown>) => T | string): Promise<T> {
  const messages: ChatMessage[] = [{ role: 'user', content: req.user }];
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await session.turn({ system: req.system, messages, tools: [req.tool], toolChoice: { name: req.tool.name }, maxOutputTokens: req.maxOutputTokens ?? 1024 });
    const call = res.toolCalls.find((c) => c.name === req.tool.name);
    const parsed = call ? parse(call.args) : `no ${req.tool.name} call`;
    if (typeof parsed !== 'string') return parsed;
    if (call) messages.push({ role: 'assistant', toolCalls: [call] }, { role: 'tool', callId: call.id, name: call.name, content: `Error: ${parsed}. Call ${req.tool.name} again with a usable answer.` });
    else messages.push({ role: 'assistant', content: res.text }, { role: 'user', content: `Answer by calling ${req.tool.name}.` });
  }
  throw new BrowserdError('action_failed', `the model ${session.model.id} did not answer in the asked-for shape, even after one repair turn`, { next: 'Try again, or choose another model (GET /v1/models).' });
}
