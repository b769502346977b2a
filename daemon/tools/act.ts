/**
 * Model steps on a tab, as REST-only operations (registry OPERATIONS): POST /v1/tabs/{id}/observe, /act and
 * /validate. They run through the one dispatch (validation, audit, scrubbing); act's chosen tool call runs
 * through it once more, as the same user by the same door, so every rule of that tool holds.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from './define.js';
import { IncludeHiddenParam, params, TabParam } from '../../protocol/params.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { ACTION_MAX, runAct } from '../models/act.js';
import { INSTRUCTION_MAX, runObserve } from '../models/observe.js';
import { ASSERTION_MAX, runValidate } from '../models/validate.js';
import { inline } from './response.js';

const TabIdParam = Type.String({ description: 'The tab, such as "t2" (a named profile\'s tab is "<profile>/t2"); the route takes it from the path.', pattern: TabParam.pattern });
const text = (what: string, max: number) => Type.String({ minLength: 1, maxLength: max, description: `${what}, 1-${max} characters.` });
const usageOf = (u: { turns: number; inputTokens: number; outputTokens: number }) => ({ turns: u.turns, inputTokens: u.inputTokens, outputTokens: u.outputTokens });

export const actTools = [
  defineTool({
    name: 'tab_observe',
    title: 'Observe a tab',
    description:
      "Asks the model which actions on the tab's page would carry out an instruction: candidates {description, ref, element, tool, args}, each an interaction tool call on an element of the snapshot. Nothing is done.",
    input: params({ tab: TabIdParam, instruction: text('What you want to do on the page', INSTRUCTION_MAX), model: ModelIdParam, maxTokensTotal: MaxTokensTotalParam }),
    effect: 'read',
    async handle(ctx, args, out) {
      const r = await runObserve(ctx, args);
      out.set('tab', r.tab).set('candidates', r.candidates).set('warnings', r.warnings).set('model', r.model).set('usage', usageOf(r.usage));
      out.text(`${r.tab}: ${r.candidates.length} candidate action(s) from ${r.model}.`);
      // Descriptions are the model's words about page text: shown fenced, like the page.
      if (r.candidates.length) out.page(`candidates for ${r.tab}`, r.candidates.map((c) => `${c.tool}${c.ref ? ` ${c.ref}` : ''}: ${c.description}`).join('\n'));
      for (const w of r.warnings) out.text(`Warning: ${inline(w)}`);
    },
  }),
  defineTool({
    name: 'tab_act',
    title: 'Act on a tab',
    description:
      'Carries out one step on the tab in plain words ("click Save", "type %vault:example.com.password% into Password"): the model picks one interaction tool call on the snapshot, which runs as if you had called it (read tabs, host policy, approvals hold; a needsApproval result comes back as it is). %vault:site.field% is filled by browser_fill_secret; the model never sees the value. The same action on the same host and page structure is replayed from the action cache with no model request (cache: false asks the model anew).',
    input: params({
      tab: TabIdParam,
      action: text('The step, in plain words', ACTION_MAX),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      cache: Type.Optional(Type.Boolean({ description: 'Use and fill the action cache. Default true.' })),
    }),
    effect: 'write',
    async handle(ctx, args, out) {
      await runAct(ctx, args, out);
    },
  }),
  defineTool({
    name: 'tab_validate',
    title: 'Validate a tab',
    description:
      "Asks the model whether the tab's page shows that an assertion holds: pass (true only with a quote that really is on the page), the quote with its place in the page text, the model's reason, warnings.",
    input: params({ tab: TabIdParam, assertion: text('What should be true of the page', ASSERTION_MAX), includeHidden: IncludeHiddenParam, model: ModelIdParam, maxTokensTotal: MaxTokensTotalParam }),
    effect: 'read',
    async handle(ctx, args, out) {
      const r = await runValidate(ctx, args);
      out.set('tab', r.tab).set('pass', r.pass).set('modelPass', r.modelPass).set('reason', r.reason).set('warnings', r.warnings).set('model', r.model).set('usage', usageOf(r.usage));
      if (r.citation) out.set('quote', r.quote).set('citation', r.citation);
      out.text(`${r.tab}: ${r.pass ? 'PASS' : 'FAIL'} (${r.model}).`);
      if (r.quote) out.page(`quote from ${r.tab}`, r.quote);
      if (r.reason) out.page('reason', r.reason);
      for (const w of r.warnings) out.text(`Warning: ${inline(w)}`);
    },
  }),
];
