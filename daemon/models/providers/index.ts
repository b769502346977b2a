/** Each provider family's adapter, by family: the session picks one by the chosen model's provider. */
import type { Provider, ProviderTurn } from '../types.js';
import { openaiTurn } from './openai.js';
import { anthropicTurn } from './anthropic.js';
import { geminiTurn } from './gemini.js';

export const PROVIDER_TURNS: Record<Provider, ProviderTurn> = { openai: openaiTurn, anthropic: anthropicTurn, gemini: geminiTurn };
