/**
 * Gemini generateContent through the official `@google/genai` SDK (Gemini API, not Vertex): one request per
 * turn, functionCall / functionResponse parts for native tool calling, JSON output by responseMimeType
 * application/json with responseJsonSchema. The SDK builds `{baseUrl}/v1beta/models/{model}:generateContent`
 * from httpOptions.baseUrl and its default api version; the key goes only in `x-goog-api-key`.
 */
import { randomBytes } from 'node:crypto';
import type { ApiError, Content, FunctionCallingConfigMode, GenerateContentConfig, GenerateContentResponse, Part } from '@google/genai';

/**
 * The SDK's FunctionCallingConfigMode values (string enum members), spelled here so that building a request
 * does not load the SDK: it is loaded by the first call (geminiTurn).
 */
const CALL_MODE = { AUTO: 'AUTO', ANY: 'ANY' } as unknown as Record<'AUTO' | 'ANY', FunctionCallingConfigMode>;
import type { ChatMessage, JsonSchema, ProviderRequest, ProviderTurn, ToolCall, TurnRequest, TurnResult } from '../types.js';
import { parseToolArgs, providerFailure } from './failure.js';
import { own } from '../../../protocol/own.js';

const DEFAULT_OUTPUT_TOKENS = 4096;
/** Ids we made up for calls Gemini sent without one: never sent back, since Gemini did not issue them. */
const MADE_UP_ID = 'gemini-call-';

/**
 * The JSON Schema keywords Gemini documents for responseJsonSchema / parametersJsonSchema; anything else
 * ($schema, pattern, minLength, default, ...) is dropped because the API refuses what it does not know. The
 * answer loses nothing: features check it against the full schema with ajv.
 */
const GEMINI_KEYWORDS = new Set(['$id', '$defs', '$ref', '$anchor', 'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems', 'minItems', 'maxItems', 'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required', 'propertyOrdering']);
const SCHEMA_MAPS = new Set(['properties', '$defs']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'prefixItems']);

export function geminiSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema as JsonSchema)) {
    if (!GEMINI_KEYWORDS.has(k)) continue;
    if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v as JsonSchema).map(([name, s]) => [name, geminiSchema(s)]));
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(geminiSchema);
    else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') out[k] = geminiSchema(v);
    else out[k] = v;
  }
  return out;
}

/** All results of one assistant turn go back in one content, as many functionResponses as there were calls. */
function toContents(messages: ChatMessage[]): Content[] {
  const out: Content[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', parts: [...(m.images ?? []).map((i) => ({ inlineData: { mimeType: i.mimeType, data: i.data } })), { text: m.content }] });
    else if (m.role === 'assistant') {
      const parts: Part[] = [];
      if (m.content) parts.push({ text: m.content });
      for (const c of m.toolCalls ?? []) parts.push({ functionCall: { ...(c.id.startsWith(MADE_UP_ID) ? {} : { id: c.id }), name: c.name, args: c.args } });
      if (parts.length) out.push({ role: 'model', parts });
    } else {
      const part: Part = { functionResponse: { ...(m.callId.startsWith(MADE_UP_ID) ? {} : { id: m.callId }), name: m.name, response: { result: m.content } } };
      const last = out.at(-1);
      if (last?.role === 'user' && last.parts?.every((p) => p.functionResponse)) last.parts.push(part);
      else out.push({ role: 'user', parts: [part] });
    }
  }
  return out;
}

function toToolConfig(choice: TurnRequest['toolChoice']): GenerateContentConfig['toolConfig'] {
  if (!choice || choice === 'auto') return { functionCallingConfig: { mode: CALL_MODE.AUTO } };
  if (choice === 'required') return { functionCallingConfig: { mode: CALL_MODE.ANY } };
  return { functionCallingConfig: { mode: CALL_MODE.ANY, allowedFunctionNames: [choice.name] } };
}

/** The SDK call's parameters, exported for the tests that pin the mapping. */
export function geminiParams(req: ProviderRequest): { model: string; contents: Content[]; config: GenerateContentConfig } {
  const config: GenerateContentConfig = {
    systemInstruction: req.system,
    maxOutputTokens: req.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS,
    abortSignal: req.signal,
    // One turn is one request: no continuation hops the budget did not see, no calls run by the SDK.
    automaticContinuation: false,
    automaticFunctionCalling: { disable: true },
  };
  if (req.tools?.length) {
    config.tools = [{ functionDeclarations: req.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: geminiSchema(t.parameters) })) }];
    config.toolConfig = toToolConfig(req.toolChoice);
  }
  if (req.jsonSchema) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = geminiSchema(req.jsonSchema.schema);
  }
  return { model: req.model.name, contents: toContents(req.messages), config };
}

const STOP: Record<string, TurnResult['stop']> = { STOP: 'end', MAX_TOKENS: 'length' };

/** Gemini's error body (`{error: {code, message, status}}`) arrives JSON-encoded in the SDK error's message. */
function geminiMessage(e: ApiError): string | undefined {
  try {
    const said = JSON.parse(e.message)?.error?.message;
    return typeof said === 'string' ? said : undefined;
  } catch {
    return undefined;
  }
}

export const geminiTurn: ProviderTurn = async (req) => {
  // vertexai false: GOOGLE_GENAI_USE_VERTEXAI in the environment must not send the key to Google Cloud.
  // One retry (attempts counts the first call), as for the other families.
  const { ApiError: ApiErrorClass, GoogleGenAI } = await import('@google/genai');
  const client = new GoogleGenAI({
    apiKey: req.key,
    vertexai: false,
    httpOptions: { baseUrl: req.baseUrl, timeout: req.timeoutMs, retryOptions: { attempts: 2 } },
  });
  let answer: GenerateContentResponse;
  try {
    answer = await client.models.generateContent(geminiParams(req));
  } catch (e) {
    if (e instanceof ApiErrorClass) throw providerFailure('gemini', { status: e.status, message: geminiMessage(e) }, req.key, req.signal, req.timeoutMs);
    // The SDK's own timer aborts the fetch: an AbortError while our signal is not aborted is its timeout.
    if (e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError')) throw providerFailure('gemini', { timedOut: true }, req.key, req.signal, req.timeoutMs);
    throw providerFailure('gemini', { message: e instanceof Error ? e.message : String(e) }, req.key, req.signal, req.timeoutMs);
  }
  const candidate = answer.candidates?.[0];
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const part of candidate?.content?.parts ?? []) {
    if (part.thought) continue;
    if (typeof part.text === 'string') text += part.text;
    if (part.functionCall?.name) {
      const name = part.functionCall.name;
      toolCalls.push({ id: part.functionCall.id ?? `${MADE_UP_ID}${randomBytes(6).toString('hex')}`, name, args: parseToolArgs('gemini', name, part.functionCall.args ?? {}) });
    }
  }
  const meta = answer.usageMetadata;
  // Thinking tokens are billed as output: the budget counts them.
  const output = (meta?.candidatesTokenCount ?? 0) + (meta?.thoughtsTokenCount ?? 0);
  let stop: TurnResult['stop'] = own(STOP, candidate?.finishReason) ?? 'other';
  if (stop === 'end' && toolCalls.length) stop = 'tool';
  return { text, toolCalls, usage: { input: meta?.promptTokenCount ?? 0, output }, stop };
};
