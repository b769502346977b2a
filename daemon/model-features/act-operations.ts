/**
 * Model steps on a tab, as REST-only operations: POST /v1/tabs/{id}/observe, /act and
 * /validate. They run through the one dispatch (validation, audit, scrubbing); act's chosen tool call runs
 * through it once more, as the same user by the same door, so every rule of that tool holds.
 */
import { Type } from '@sinclair/typebox';
import { defineTool, type ToolLookup } from '../call/define.js';
import { IncludeHiddenParam, params, TabParam } from '../../protocol/params.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { ACTION_MAX, runAct } from './act.js';
import { INSTRUCTION_MAX, runObserve } from './observe.js';
import { ACT_TOOLS, type ActToolDefs } from './act-tools.js';
import { ASSERTION_MAX, runValidate } from './validate.js';
import { CitationSchema } from '../models/citations.js';
import { TurnUsageSchema } from '../models/types.js';
import { ApprovalField, PageText, TabIdField } from '../call/output.js';

/**
 * The interaction tools act chooses from (input, forms, pointer, vault): other features' tools, read by name
 * through the lookup main.ts hands in rather than imported. Looked up at the first act, once the registry is full.
 */
function actToolDefs(tool: ToolLookup): () => ActToolDefs {
  let defs: ActToolDefs | undefined;
  return () => (defs ??= new Map(ACT_TOOLS.flatMap((name) => { const def = tool(name); return def ? [[name, def] as const] : []; })));
}

const TabIdParam = Type.String({ description: 'The tab, such as "t2" (a named profile\'s tab is "<profile>/t2"); the route takes it from the path.', pattern: TabParam.pattern });
const text = (what: string, max: number) => Type.String({ minLength: 1, maxLength: max, description: `${what}, 1-${max} characters.` });
/** An element as a step aims at it: what finds it again on a page of the same structure. */
const ElementField = Type.Object(
  { role: Type.String(), name: PageText({ description: 'Its accessible name (the page chose it).' }), nth: Type.Integer({ description: 'Which of the elements with this role and name, from 0 in snapshot order.' }) },
  { description: 'The element the call aims at.' },
);
const ToolArgsField = Type.Record(Type.String(), Type.Unknown(), { description: "The tool's arguments (without tab)." });
/** Warnings can quote the model (a quote not on the page, a tool or ref it made up): page text. */
const WarningsField = Type.Array(PageText());
const ModelField = Type.String({ description: 'The model id that answered.' });
const UsageField = Type.Object(TurnUsageSchema.properties, { description: 'Tokens this call spent on the model.' });

/**
 * The approval answer of the step's tool, passed on as it came (model-features/act.ts): unlike a tool the gate stopped
 * itself, tab_act still reports the step it chose beside it.
 */
const StepApprovalField = ApprovalField;

const usageOf = (u: { turns: number; inputTokens: number; outputTokens: number }) => ({ turns: u.turns, inputTokens: u.inputTokens, outputTokens: u.outputTokens });

/** The observe, act and validate operations; act runs the tools `tool` finds by name. */
export const actOperations = (tool: ToolLookup) => {
  const defs = actToolDefs(tool);
  return [
  defineTool({
    name: 'tab_observe',
    title: 'Observe a tab',
    description:
      "Asks the model which actions on the tab's page would carry out an instruction: candidates {description, ref, element, tool, args}, each an interaction tool call on an element of the snapshot. Nothing is done.",
    input: params({ tab: TabIdParam, instruction: text('What you want to do on the page', INSTRUCTION_MAX), model: ModelIdParam, maxTokensTotal: MaxTokensTotalParam }),
    output: Type.Object({
      tab: TabIdField,
      candidates: Type.Array(
        Type.Object({
          description: PageText({ description: "The model's words for the action (about page text)." }),
          ref: Type.Optional(Type.String({ description: 'The element ref in the current snapshot.' })),
          element: Type.Optional(ElementField),
          tool: Type.String({ description: 'The interaction tool that would do it.' }),
          args: ToolArgsField,
        }),
        { description: 'Best first; none when nothing on the page fits.' },
      ),
      warnings: Type.Array(PageText(), { description: "Candidates dropped (not an interaction tool, or an element not on the page); they quote the model." }),
      model: ModelField,
      usage: UsageField,
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const r = await runObserve(ctx, args);
      out.set('tab', r.tab).set('candidates', r.candidates).set('warnings', r.warnings).set('model', r.model).set('usage', usageOf(r.usage));
      out.text(`${r.tab}: ${r.candidates.length} candidate action(s) from ${r.model}.`);
      // Descriptions are the model's words about page text: shown fenced, like the page.
      if (r.candidates.length) out.page(`candidates for ${r.tab}`, r.candidates.map((c) => `${c.tool}${c.ref ? ` ${c.ref}` : ''}: ${c.description}`).join('\n'));
      // A dropped candidate's warning quotes what the model made up: fenced like its descriptions.
      if (r.warnings.length) out.text(`${r.warnings.length} candidate(s) dropped; why is fenced below.`).page('warnings', r.warnings.join('\n'));
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
    output: Type.Object({
      tab: TabIdField,
      cached: Type.Boolean({ description: 'Replayed from the action cache: no model request.' }),
      model: Type.String({ description: 'The model that chose the step (for a replay, the one that chose it first).' }),
      usage: UsageField,
      steps: Type.Array(Type.Object({ tool: Type.String(), args: ToolArgsField, element: Type.Optional(ElementField) }), { description: 'The tool calls chosen (or replayed), in order.' }),
      results: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: "Each step's own result as its tool answers over REST (ok, its fields, text), for the steps that ran." }),
      warnings: WarningsField,
      needsApproval: Type.Optional(StepApprovalField),
    }),
    effect: 'write',
    async handle(ctx, args, out) {
      await runAct(ctx, args, out, defs());
    },
  }),
  defineTool({
    name: 'tab_validate',
    title: 'Validate a tab',
    description:
      "Asks the model whether the tab's page shows that an assertion holds: pass (true only with a quote that really is on the page), the quote with its place in the page text, the model's reason, warnings.",
    input: params({ tab: TabIdParam, assertion: text('What should be true of the page', ASSERTION_MAX), includeHidden: IncludeHiddenParam, model: ModelIdParam, maxTokensTotal: MaxTokensTotalParam }),
    output: Type.Object({
      tab: TabIdField,
      pass: Type.Boolean({ description: 'The assertion holds: the model said so and quoted the page.' }),
      modelPass: Type.Boolean({ description: 'What the model said, before its quote was checked.' }),
      reason: PageText({ description: "The model's reason (its words about page text)." }),
      warnings: WarningsField,
      model: ModelField,
      usage: UsageField,
      quote: Type.Optional(PageText({ description: 'The words of the page that show it, checked to be on the page.' })),
      citation: Type.Optional(CitationSchema),
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const r = await runValidate(ctx, args);
      out.set('tab', r.tab).set('pass', r.pass).set('modelPass', r.modelPass).set('reason', r.reason).set('warnings', r.warnings).set('model', r.model).set('usage', usageOf(r.usage));
      if (r.citation) out.set('quote', r.quote).set('citation', r.citation);
      out.text(`${r.tab}: ${r.pass ? 'PASS' : 'FAIL'} (${r.model}).`);
      if (r.quote) out.page(`quote from ${r.tab}`, r.quote);
      if (r.reason) out.page('reason', r.reason);
      // Warnings can quote the model's quote: fenced.
      if (r.warnings.length) out.text(`${r.warnings.length} warning(s), fenced below.`).page('warnings', r.warnings.join('\n'));
    },
  }),
  ];
};
