/**
 * Anthropic Messages through the official `@anthropic-ai/sdk`: one non-streaming request per turn, tool_use /
 * tool_result blocks for native tool calling. JSON output is a forced tool named after the schema whose input
 * is the answer (the way Messages gives structured output everywhere), returned as `text` JSON like the other
 * families' JSON modes. The key goes only in `x-api-key`, Anthropic's header for API keys.
 */
import type { ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool, ToolChoice, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, JsonSchema, ProviderRequest, ProviderTurn, ToolCall, TurnResult } from '../types.js';
import { parseToolArgs, providerFailure, wireName } from './failure.js';
import { own } from '../../../protocol/own.js';

const DEFAULT_OUTPUT_TOKENS = 4096;

/** Tool results of one assistant turn go back together in one user message, as Messages requires. */
function toMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const pushUser = (blocks: ContentBlockParam[]) => {
    const last = out.at(-1);
    // Consecutive user content (tool results, then a user note) joins one user turn: roles must alternate.
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') {
      pushUser([...(m.images ?? []).map((i): ContentBlockParam => ({ type: 'image', source: { type: 'base64', media_type: i.mimeType, data: i.data } })), { type: 'text', text: m.content }]);
    }
    else if (m.role === 'tool') {
      const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: m.callId, content: m.content };
      pushUser([result]);
    } else {
      const blocks: ContentBlockParam[] = [];
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
      if (blocks.length) out.push({ role: 'assistant', content: blocks });
    }
  }
  return out;
}

/** Tool inputs must be objects; a schema with another root is wrapped in `{value}` and unwrapped on the way back. */
function answerSchema(schema: JsonSchema): { schema: Tool['input_schema']; wrapped: boolean } {
  if (schema.type === 'object') return { schema: schema as Tool['input_schema'], wrapped: false };
  return { schema: { type: 'object', properties: { value: schema }, required: ['value'] }, wrapped: true };
}

/** The request body and how to read the answer back, exported for the tests that pin the mapping. */
export function anthropicBody(req: ProviderRequest): { body: MessageCreateParamsNonStreaming; answerTool?: { name: string; wrapped: boolean } } {
  const body: MessageCreateParamsNonStreaming = {
    model: req.model.name,
    max_tokens: req.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS,
    system: req.system,
    messages: toMessages(req.messages),
  };
  const tools: Tool[] = (req.tools ?? []).map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Tool['input_schema'] }));
  let choice: ToolChoice | undefined;
  if (req.toolChoice === 'required') choice = { type: 'any' };
  else if (req.toolChoice && typeof req.toolChoice === 'object') choice = { type: 'tool', name: req.toolChoice.name };
  else if (req.toolChoice === 'auto') choice = { type: 'auto' };
  let answerTool: { name: string; wrapped: boolean } | undefined;
  if (req.jsonSchema) {
    const name = wireName(req.jsonSchema.name);
    const { schema, wrapped } = answerSchema(req.jsonSchema.schema);
    tools.push({ name, description: 'Give your answer by calling this tool: its input is the answer, in exactly this schema.', input_schema: schema });
    choice = { type: 'tool', name };
    answerTool = { name, wrapped };
  }
  if (tools.length) {
    body.tools = tools;
    if (choice) body.tool_choice = choice;
  }
  return { body, answerTool };
}

const STOP: Record<string, TurnResult['stop']> = { end_turn: 'end', stop_sequence: 'end', tool_use: 'tool', max_tokens: 'length' };

export const anthropicTurn: ProviderTurn = async (req) => {
  const { body, answerTool } = anthropicBody(req);
  // A client per call, since the key is per call. This SDK version sends an apiKey as Authorization: Bearer;
  // the header is set to x-api-key here and Authorization dropped, so the key travels only in Anthropic's own
  // API-key header (and a proxy or OAuth-only endpoint never sees it as a bearer token).
  // Loaded on the first call, not with the daemon: a host that never calls a model never holds the SDK.
  const { default: AnthropicClient, APIConnectionTimeoutError, APIError, APIUserAbortError } = await import('@anthropic-ai/sdk');
  const client = new AnthropicClient({
    apiKey: req.key,
    baseURL: req.baseUrl,
    maxRetries: 1,
    timeout: req.timeoutMs,
    defaultHeaders: { 'x-api-key': req.key, Authorization: null },
  });
  let answer: Message;
  try {
    answer = await client.messages.create(body, { signal: req.signal, timeout: req.timeoutMs, maxRetries: 1 });
  } catch (e) {
    if (e instanceof APIConnectionTimeoutError) throw providerFailure('anthropic', { timedOut: true }, req.key, req.signal, req.timeoutMs);
    if (e instanceof APIUserAbortError) throw providerFailure('anthropic', {}, req.key, req.signal, req.timeoutMs);
    if (e instanceof APIError && e.status !== undefined) {
      const said = (e.error as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw providerFailure('anthropic', { status: e.status, message: typeof said === 'string' ? said : undefined }, req.key, req.signal, req.timeoutMs);
    }
    throw providerFailure('anthropic', { message: e instanceof Error ? e.message : String(e) }, req.key, req.signal, req.timeoutMs);
  }
  let text = '';
  let answered: unknown;
  const toolCalls: ToolCall[] = [];
  for (const block of answer.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') {
      const args = parseToolArgs('anthropic', block.name, block.input);
      if (answerTool && block.name === answerTool.name && answered === undefined) answered = answerTool.wrapped ? args.value : args;
      else toolCalls.push({ id: block.id, name: block.name, args });
    }
  }
  const usage = answer.usage;
  // Cache writes and reads are input too: the budget counts every token the provider read.
  const input = (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  let stop = own(STOP, answer.stop_reason) ?? 'other';
  if (answered !== undefined) {
    // The forced answer tool is the reply itself, not a call to run: the turn ended with the answer.
    text = JSON.stringify(answered);
    if (stop === 'tool' && toolCalls.length === 0) stop = 'end';
  }
  return { text, toolCalls, usage: { input, output: usage?.output_tokens ?? 0 }, stop };
};
