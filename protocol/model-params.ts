/** Parameters every model-using tool and route shares, each described for a model. */
import { Type } from '@sinclair/typebox';

export const MODEL_ID_PATTERN = '^(openai|anthropic|gemini)/[A-Za-z0-9._:-]{1,100}$';
export const DEFAULT_MAX_TOKENS_TOTAL = 300000;
export const MAX_TOKENS_TOTAL_LIMIT = 2000000;

export const ModelIdParam = Type.Optional(
  Type.String({ description: 'A model id from GET /v1/models, such as "openai/gpt-5.4-mini". Default: the server\'s default model.', pattern: MODEL_ID_PATTERN }),
);
export const MaxTokensTotalParam = Type.Optional(
  Type.Integer({ description: `Token budget over every model turn of this call, 1-${MAX_TOKENS_TOTAL_LIMIT}. Default ${DEFAULT_MAX_TOKENS_TOTAL}. A turn that cannot fit is refused (budget_exceeded) before it is sent.`, minimum: 1, maximum: MAX_TOKENS_TOTAL_LIMIT }),
);

/** A quote of a page backing a model's answer, checked against the page text; offsets into that page's Markdown. */
export interface Citation {
  field?: string;
  chunk: string;
  quote: string;
  url: string;
  headingPath: string[];
  start: number;
  end: number;
}
