/**
 * The model ids a caller may choose: one preset per provider family plus the admin's BROWSERD_MODELS. An id is
 * `<provider>/<the provider's model name>`; anything else, or an id not listed, is a validation_error.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { MODEL_ID_PATTERN } from '../../protocol/model-params.js';
import type { ModelConfig } from '../config.js';
import { PROVIDERS, type ModelInfo, type Provider } from './types.js';

/** A sensible current model per family; the admin adds others with BROWSERD_MODELS. */
export const PRESET_MODELS: readonly string[] = ['openai/gpt-5.4-mini', 'anthropic/claude-sonnet-4-6', 'gemini/gemini-flash-latest'];

const ID = new RegExp(MODEL_ID_PATTERN);

function parse(id: string): { provider: Provider; name: string } | undefined {
  if (!ID.test(id)) return undefined;
  const slash = id.indexOf('/');
  return { provider: id.slice(0, slash) as Provider, name: id.slice(slash + 1) };
}

/** Checked at start, so a typo in BROWSERD_MODELS or BROWSERD_DEFAULT_MODEL fails there, not on a user's call. */
export function checkModelConfig(cfg: ModelConfig) {
  for (const id of cfg.extraModels) if (!parse(id)) throw new Error(`BROWSERD_MODELS: "${id}" is not <openai|anthropic|gemini>/<model name>`);
  if (cfg.defaultModel && !listModels(cfg).some((m) => m.id === cfg.defaultModel)) {
    throw new Error(`BROWSERD_DEFAULT_MODEL "${cfg.defaultModel}" is neither a preset (${PRESET_MODELS.join(', ')}) nor in BROWSERD_MODELS`);
  }
}

export function hostKey(cfg: ModelConfig, provider: Provider): string | undefined {
  return provider === 'openai' ? cfg.openaiKey : provider === 'anthropic' ? cfg.anthropicKey : cfg.geminiKey;
}

/**
 * The default: the admin's choice, else the first preset whose provider has a host key (so a host with only
 * an Anthropic key defaults to Anthropic), else the first preset (callers then bring X-Model-Key).
 */
function defaultId(cfg: ModelConfig): string {
  if (cfg.defaultModel) return cfg.defaultModel;
  return PRESET_MODELS.find((id) => hostKey(cfg, parse(id)!.provider)) ?? PRESET_MODELS[0];
}

export function listModels(cfg: ModelConfig): ModelInfo[] {
  const ids = [...new Set([...PRESET_MODELS, ...cfg.extraModels])];
  const def = cfg.defaultModel && ids.includes(cfg.defaultModel) ? cfg.defaultModel : defaultId({ ...cfg, defaultModel: undefined });
  return ids.map((id) => ({ id, ...parse(id)!, default: id === def }));
}

export function resolveModel(cfg: ModelConfig, id?: string): ModelInfo {
  const models = listModels(cfg);
  if (id === undefined) return models.find((m) => m.default)!;
  const found = models.find((m) => m.id === id);
  if (!found) {
    throw new BrowserdError('validation_error', `unknown model "${String(id).slice(0, 120)}"`, { next: `Choose one of ${models.map((m) => m.id).join(', ')} (GET /v1/models), or leave model out for the default.` });
  }
  return found;
}

export const providerNames: Record<Provider, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' };
export { PROVIDERS };
