/** Placeholder until the openai adapter lands (it is being written on its own branch); refuses every call. */
import { BrowserdError } from '../../../protocol/errors.js';
import type { ProviderTurn } from '../types.js';

export const openaiTurn: ProviderTurn = async () => {
  throw new BrowserdError('not_configured', 'the openai adapter is not built yet', { next: 'Use another provider.' });
};
