/** Parameters every model-using tool and route shares (described once in the MCP server's instructions). */
import { Type } from '@sinclair/typebox';

export const MODEL_ID_PATTERN = '^(openai|anthropic|gemini)/[A-Za-z0-9._:-]{1,100}$';
export const DEFAULT_MAX_TOKENS_TOTAL = 300000;
export const MAX_TOKENS_TOTAL_LIMIT = 2000000;

export const ModelIdParam = Type.Optional(
  Type.String({ pattern: MODEL_ID_PATTERN }),
);
export const MaxTokensTotalParam = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MAX_TOKENS_TOTAL_LIMIT }),
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
