/**
 * OpenAI-compatible Chat Completions through the official `openai` SDK: one non-streaming request per turn,
 * native function calling, and JSON output by `response_format: json_schema` (strict off, since strict mode
 * refuses ordinary schemas: optional properties, open objects; the feature checks the answer with ajv anyway).
 * The key goes only in `Authorization: Bearer`, the header this family reads.
 */
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import type { ChatMessage, ProviderRequest, ProviderTurn, TurnRequest, TurnResult } from '../types.js';
import { parseToolArgs, providerFailure, wireName } from './failure.js';
import { own } from '../../../protocol/own.js';

const DEFAULT_OUTPUT_TOKENS = 4096;

function toMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({
        role: 'user',
        content: m.images?.length
          ? [...m.images.map((i) => ({ type: 'image_url' as const, image_url: { url: `data:${i.mimeType};base64,${i.data}` } })), { type: 'text' as const, text: m.content }]
          : m.content,
      });
    }
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.callId, content: m.content });
    else {
      const calls = m.toolCalls ?? [];
      out.push({
        role: 'assistant',
        content: m.content ?? null,
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } })) } : {}),
      });
    }
  }
  return out;
}

function toToolChoice(choice: TurnRequest['toolChoice']): ChatCompletionToolChoiceOption | undefined {
  if (!choice) return undefined;
  if (choice === 'auto' || choice === 'required') return choice;
  return { type: 'function', function: { name: choice.name } };
}

/** The request body, exported for the tests that pin the mapping. */
export function openaiBody(req: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: req.model.name,
    messages: toMessages(req.system, req.messages),
    // max_completion_tokens, not the older max_tokens: OpenAI's reasoning models refuse max_tokens, and the
    // compatible servers we know of accept both.
    max_completion_tokens: req.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS,
  };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    const choice = toToolChoice(req.toolChoice);
    if (choice) body.tool_choice = choice;
  }
  if (req.jsonSchema) {
    body.response_format = { type: 'json_schema', json_schema: { name: wireName(req.jsonSchema.name), schema: req.jsonSchema.schema, strict: false } };
  }
  return body;
}

const STOP: Record<string, TurnResult['stop']> = { stop: 'end', tool_calls: 'tool', function_call: 'tool', length: 'length' };

export const openaiTurn: ProviderTurn = async (req) => {
  // A client per call: the key is the caller's (X-Model-Key) or the host's, never shared between calls.
  // organization/project null so OPENAI_ORG_ID / OPENAI_PROJECT_ID in the daemon's environment add no headers.
  // Loaded on the first call, not with the daemon: a host that never calls a model never holds the SDK.
  const { default: OpenAIClient, APIConnectionTimeoutError, APIError, APIUserAbortError } = await import('openai');
  const client = new OpenAIClient({ apiKey: req.key, baseURL: req.baseUrl, organization: null, project: null, maxRetries: 1, timeout: req.timeoutMs });
  let answer: OpenAI.Chat.Completions.ChatCompletion;
  try {
    answer = await client.chat.completions.create(openaiBody(req), { signal: req.signal, timeout: req.timeoutMs, maxRetries: 1 });
  } catch (e) {
    if (e instanceof APIConnectionTimeoutError) throw providerFailure('openai', { timedOut: true }, req.key, req.signal, req.timeoutMs);
    if (e instanceof APIUserAbortError) throw providerFailure('openai', {}, req.key, req.signal, req.timeoutMs);
    if (e instanceof APIError) {
      const said = (e.error as { message?: unknown } | undefined)?.message;
      throw providerFailure('openai', { status: e.status, message: typeof said === 'string' ? said : undefined }, req.key, req.signal, req.timeoutMs);
    }
    throw providerFailure('openai', { message: e instanceof Error ? e.message : String(e) }, req.key, req.signal, req.timeoutMs);
  }
  const choice = answer.choices[0];
  const message = choice?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, args: parseToolArgs('openai', c.function.name, c.function.arguments) }] : []));
  return {
    text: message?.content ?? message?.refusal ?? '',
    toolCalls,
    usage: { input: answer.usage?.prompt_tokens ?? 0, output: answer.usage?.completion_tokens ?? 0 },
    stop: own(STOP, choice?.finish_reason) ?? 'other',
  };
};
