/**
 * What an agent pays for our tool definitions before its first call, held to a budget: the tokens a model reads
 * of every tool (name, description and input schema, counted with gpt-tokenizer) and the bytes of the whole
 * tools/list answer, output schemas included. Built by the gateway's own code (daemon/server/tool-list.ts).
 * A new parameter or a longer description that breaks the budget has to pay for itself somewhere else.
 * `npm run bench -- --only tool-definitions` prints the same figures beside Playwright MCP's.
 */
import t from 'tap';
import { Ajv } from 'ajv';
import { TOOLS } from '../../daemon/main.js';
import { toolList } from '../../daemon/server/tool-list.js';
import { measureToolList } from '../fixtures/tool-measure.js';

const MODEL_TOKENS_MAX = 12_000;
const LIST_BYTES_MAX = 100_000;

const list = toolList(TOOLS.tools);
const figures = measureToolList(list);

t.test(`every tool together costs a model at most ${MODEL_TOKENS_MAX} tokens`, async (t) => {
  t.equal(figures.tools, 75);
  t.ok(figures.modelTokens <= MODEL_TOKENS_MAX, `${figures.modelTokens} tokens (heaviest: ${figures.perTool.slice(0, 5).map((x) => `${x.name} ${x.tokens}`).join(', ')})`);
});

t.test(`the whole tools/list answer is at most ${LIST_BYTES_MAX} bytes`, async (t) => {
  t.ok(figures.listBytes <= LIST_BYTES_MAX, `${figures.listBytes} bytes`);
});

t.test('the listed schemas are still schemas a client can use', async (t) => {
  // The MCP SDK client compiles each output schema and checks structuredContent against it.
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const tool of list.tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: input is an object`);
    t.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}: input compiles`);
    if (tool.outputSchema) t.doesNotThrow(() => ajv.compile(tool.outputSchema!), `${tool.name}: output compiles`);
  }
});
