/**
 * The one way a feature talks to a model: a budgeted conversation with one model and one key. The model id
 * and the key are resolved when the session opens, so a bad id or a missing key fails before anything is
 * sent; every turn is estimated locally first and refused (budget_exceeded, nothing sent) when it cannot fit
 * what is left of maxTokensTotal; what the provider reports is added to the session and to the user's usage.
 */
import { createRequire } from 'node:module';
import { BrowserdError } from '../../protocol/errors.js';
import { DEFAULT_MAX_TOKENS_TOTAL } from '../../protocol/model-params.js';
import type { Platform } from '../platform.js';
import { hostKey, providerNames, resolveModel } from './catalog.js';
import { PROVIDER_TURNS } from './providers/index.js';
import type { ChatMessage, ModelInfo, SessionUsage, TurnRequest, TurnResult } from './types.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { scrubTurnRequest } from './scrub-request.js';

/** gpt-tokenizer's tables hold about 20 MB of heap: loaded with the first model session, not with the daemon. */
let tokenizer: typeof import('gpt-tokenizer') | undefined;
const countTokens = (text: string): number => (tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens(text);

export interface SessionOptions {
  env: Platform;
  user: string;
  /** A model id from GET /v1/models; the default model when absent. */
  model?: string;
  /** The caller's X-Model-Key: wins over the host key of the model's provider. */
  key?: string;
  /** Budget over all turns of the session (default 300000). */
  maxTokensTotal?: number;
  signal: AbortSignal;
}

const DEFAULT_OUTPUT_TOKENS = 4096;
/** Per-message framing the providers add around each message and tool (roles, separators): a safe overcount. */
const MESSAGE_OVERHEAD = 4;
/**
 * What one image costs as input, counted before sending: the families charge by size, up to about 1,600 tokens
 * for a large image (Anthropic ~1,600 at 1.15 MP, OpenAI 765–1,105 in high detail, Gemini 258 per 768 px tile
 * up to a few tiles), so the most is counted and what the provider reports is what is kept.
 */
export const IMAGE_TOKENS = 1600;

export function openModelSession(opts: SessionOptions): ModelSession {
  const cfg = opts.env.cfg.models;
  const model = resolveModel(cfg, opts.model);
  const key = opts.key || hostKey(cfg, model.provider);
  if (!key) {
    throw new BrowserdError('not_configured', `no ${providerNames[model.provider]} key: the request has no X-Model-Key and the host has none for ${model.provider}`, {
      next: `Send your ${providerNames[model.provider]} API key in the X-Model-Key header, choose a model of a provider the host has a key for (GET /v1/models), or ask the admin to set BROWSERD_${model.provider.toUpperCase()}_API_KEY.`,
    });
  }
  return new ModelSession(opts, model, key);
}

export class ModelSession {
  private spentInput = 0;
  private spentOutput = 0;
  private turns = 0;
  private readonly budget: number;

  constructor(private opts: SessionOptions, readonly model: ModelInfo, private readonly key: string) {
    this.budget = opts.maxTokensTotal ?? DEFAULT_MAX_TOKENS_TOTAL;
  }

  estimateTokens(req: TurnRequest): number {
    let n = countTokens(req.system) + MESSAGE_OVERHEAD;
    for (const m of req.messages) n += messageTokens(m) + MESSAGE_OVERHEAD;
    for (const t of req.tools ?? []) n += countTokens(`${t.name}\n${t.description}\n${JSON.stringify(t.parameters)}`) + MESSAGE_OVERHEAD;
    if (req.jsonSchema) n += countTokens(JSON.stringify(req.jsonSchema.schema)) + MESSAGE_OVERHEAD;
    return n;
  }

  remaining(): number {
    return Math.max(0, this.budget - this.spentInput - this.spentOutput);
  }

  async turn(given: TurnRequest): Promise<TurnResult> {
    if (this.opts.signal.aborted) throw new BrowserdError('timeout', 'the call was cancelled before the model was asked', { next: 'Call again if it is still wanted.' });
    // No vault value leaves for a model, whatever built the request. An env without a vault (a unit test's) holds none.
    const env = this.opts.env;
    const req = env.vault ? scrubTurnRequest(given, userSecretForms(env, this.opts.user)) : given;
    const estimate = this.estimateTokens(req);
    const left = this.remaining();
    if (estimate >= left) {
      throw new BrowserdError('budget_exceeded', `the next model turn needs about ${estimate} input tokens but ${left} of maxTokensTotal ${this.budget} are left; nothing was sent`, {
        next: 'Raise maxTokensTotal (up to 2000000), or ask about fewer or shorter pages.',
        details: { estimatedInputTokens: estimate, remainingTokens: left, maxTokensTotal: this.budget },
      });
    }
    const maxOutputTokens = Math.min(req.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS, left - estimate);
    const cfg = this.opts.env.cfg.models;
    const baseUrl = this.model.provider === 'openai' ? cfg.openaiBaseUrl : this.model.provider === 'anthropic' ? cfg.anthropicBaseUrl : cfg.geminiBaseUrl;
    const result = await PROVIDER_TURNS[this.model.provider]({ ...req, maxOutputTokens, model: this.model, key: this.key, baseUrl, timeoutMs: cfg.timeoutMs, signal: this.opts.signal });
    this.turns++;
    this.spentInput += result.usage.input;
    this.spentOutput += result.usage.output;
    await this.opts.env.modelUsage.add(this.opts.user, this.model.id, result.usage);
    return result;
  }

  usage(): SessionUsage {
    return { model: this.model.id, turns: this.turns, inputTokens: this.spentInput, outputTokens: this.spentOutput, budget: this.budget };
  }
}

function messageTokens(m: ChatMessage): number {
  switch (m.role) {
    case 'user':
      return countTokens(m.content) + (m.images?.length ?? 0) * IMAGE_TOKENS;
    case 'assistant':
      return countTokens(m.content ?? '') + (m.toolCalls ?? []).reduce((n, c) => n + countTokens(`${c.name}${JSON.stringify(c.args)}`), 0);
    case 'tool':
      return countTokens(`${m.name}\n${m.content}`);
  }
}
