/**
 * The shapes every model feature speaks, whatever the provider: one conversation turn in, one answer out.
 * Provider adapters (providers/*.ts) translate these to and from each family's wire format; features
 * (extraction, ask, extractors, act, research, tasks) only ever see these, through a ModelSession.
 */
import { Type } from '@sinclair/typebox';

export type Provider = 'openai' | 'anthropic' | 'gemini';
export const PROVIDERS: readonly Provider[] = ['openai', 'anthropic', 'gemini'];

/** One choosable model: `id` is `<provider>/<provider's model name>`, as GET /v1/models lists it. */
export interface ModelInfo {
  id: string;
  provider: Provider;
  /** The provider's own model name (the part after the slash). */
  name: string;
  /** The model a call without `model` gets. */
  default: boolean;
}

/** A JSON Schema object (draft 2020-12 / OpenAPI subset), as the caller or a feature wrote it. */
export type JsonSchema = Record<string, unknown>;

/** A function the model may call (native tool calling). */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

export interface ToolCall {
  /** The provider's call id (made up for Gemini, which has none), echoed back in the tool result. */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** An image given to the model with a user message (base64 bytes); the three families read these types. */
export interface ImageInput {
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
}

export type ChatMessage =
  | { role: 'user'; content: string; images?: ImageInput[] }
  | { role: 'assistant'; content?: string; toolCalls?: ToolCall[] }
  /** The result of one tool call, answered in the next turn. */
  | { role: 'tool'; callId: string; name: string; content: string };

export interface TurnRequest {
  /** Instructions from us (trusted); page text never goes here, only fenced inside messages. */
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `required`: some tool must be called; `{name}`: that tool (forced, for structured answers). Default auto. */
  toolChoice?: 'auto' | 'required' | { name: string };
  /** Structured output without tools: the provider's JSON-schema mode. The answer's `text` is the JSON. */
  jsonSchema?: { name: string; schema: JsonSchema };
  /** Upper bound on the answer's tokens (default 4096); counted against the budget before sending. */
  maxOutputTokens?: number;
}

/** Tokens as the provider reported them for one turn. */
export interface TokenUsage {
  input: number;
  output: number;
}

export interface TurnResult {
  /** The answer's text (the JSON document in jsonSchema mode); '' when it only called tools. */
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** Why the provider stopped: end, tool, length (hit maxOutputTokens) or other. */
  stop: 'end' | 'tool' | 'length' | 'other';
}

/** What an adapter needs for one request; the key is the resolved one (X-Model-Key, else the host's). */
export interface ProviderRequest extends TurnRequest {
  model: ModelInfo;
  key: string;
  baseUrl: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * One provider family's adapter. It throws BrowserdError('action_failed') naming the provider and HTTP status
 * on a provider error (the key never in the message), 'timeout' when the provider is too slow.
 */
export type ProviderTurn = (req: ProviderRequest) => Promise<TurnResult>;

/** Running totals of one budgeted call (all its turns). */
export interface SessionUsage {
  model: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** maxTokensTotal of the call. */
  budget: number;
}

/** Tokens one step or page of a call took (no budget: that belongs to the whole call). */
export const TurnUsageSchema = Type.Object({
  turns: Type.Integer({ description: 'Model turns sent.' }),
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
});

/** SessionUsage as a result field: what a model-using call spent of its budget. */
export const SessionUsageSchema = Type.Object(
  {
    model: Type.String({ description: 'The model id the turns went to.' }),
    ...TurnUsageSchema.properties,
    budget: Type.Integer({ description: 'maxTokensTotal of the call.' }),
  },
  { description: 'Tokens the call spent on the model, against its budget.' },
);
