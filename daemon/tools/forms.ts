/** Form tools: fill_form (many fields in order, never submits), select_options, upload. */
import { Type } from '@sinclair/typebox';
import { basename } from 'node:path';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from './snapshot-after.js';
import { params, RefParam, TabParam } from '../../protocol/params.js';
import { BrowserdError, type ErrorCode } from '../../protocol/errors.js';
import { REF } from '../../protocol/ids.js';
import { setInputFiles } from '../browser/files.js';
import { PageText, TabIdField } from '../call/output.js';

export const UPLOAD_MAX_BYTES = 15 * 1024 * 1024;

/** Codes the in-page script gives for one field (stale, disabled, no such option...). */
const FIELD_FAILURES = new Set<ErrorCode>(['stale_ref', 'not_found', 'refused', 'validation_error', 'action_failed']);

export const formTools = [
  defineTool({
    name: 'browser_fill_form',
    title: 'Fill a form',
    description: 'Fills several fields in order, as browser_fill does; says which failed. Never submits.',
    input: params({
      fields: Type.Record(Type.String({ pattern: REF.source }), Type.String({ maxLength: 100000 }), { description: 'ref -> value.', minProperties: 1, maxProperties: 200 }),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(Type.Object({
      tab: TabIdField,
      filled: Type.Array(Type.String(), { description: 'Refs that took their value, in order.' }),
      failed: Type.Array(
        // The reason is the in-page script's message, which may quote the page (a select's option texts).
        Type.Object({ ref: Type.String(), reason: PageText({ description: 'Why the field could not be filled.' }) }),
        { description: 'Fields that could not be filled; the others were still filled.' },
      ),
    })),
    effect: 'write',
    touches: [{ kind: 'fill_many', fields: 'fields' }],
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const filled: string[] = [];
      const failed: { ref: string; reason: string }[] = [];
      // The pipeline gated every field before any was filled; a field that cannot be filled is reported and the
      // rest go on.
      for (const [ref, value] of Object.entries(args.fields)) {
        ctx.checkCancelled();
        try {
          await tab.call('fill', ref, value);
          filled.push(ref);
        } catch (e) {
          // What the page said about this field is reported; the browser or the daemon failing stops the form.
          if (!(e instanceof BrowserdError) || !FIELD_FAILURES.has(e.code)) throw e;
          failed.push({ ref, reason: e.message });
        }
      }
      out.set('tab', tab.id).set('filled', filled).set('failed', failed);
      out.text(`Filled ${filled.length} of ${filled.length + failed.length} field(s)${filled.length ? `: ${filled.join(', ')}` : ''}. Nothing was submitted.`);
      if (failed.length) out.page('fields that failed', failed.map((f) => `${f.ref}: ${f.reason}`).join('\n'));
    },
  }),
  defineTool({
    name: 'browser_select_options',
    title: 'Select options',
    description: 'Selects options of a <select> by text or value; the others are unselected.',
    input: params({ ref: RefParam(), values: Type.Array(Type.String({ maxLength: 1000 }), { minItems: 1, maxItems: 500 }), snapshot: SnapshotAfterParam, tab: TabParam }),
    output: withSnapshotAfter(Type.Object({ tab: TabIdField, selected: Type.Array(PageText(), { description: 'The texts of the options now selected.' }) })),
    effect: 'write',
    hints: { idempotent: true },
    touches: [{ kind: 'fill', ref: 'ref' }],
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const r = await tab.call('selectOptions', args.ref, args.values);
      out.set('tab', tab.id).set('selected', r.selected).text(`Selected in ${args.ref}:`);
      out.page(`selected options of ${args.ref}`, r.selected.join('\n'));
    },
  }),
  defineTool({
    name: 'browser_upload',
    // The file inline, base64, with room for the other arguments.
    maxBodyBytes: Math.ceil((UPLOAD_MAX_BYTES * 4) / 3) + 65536,
    title: 'Upload a file',
    description: "Puts a file into a file input (ref): one of the user's files by name, or base64 with a name.",
    input: params({
      ref: RefParam(),
      file: Type.Optional(Type.String({ maxLength: 200 })),
      name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_][A-Za-z0-9 ._-]{0,199}$' })),
      base64: Type.Optional(Type.String({ description: 'Up to 15 MB.', maxLength: Math.ceil((UPLOAD_MAX_BYTES * 4) / 3) + 4 })),
      tab: TabParam,
    }),
    output: Type.Object({ tab: TabIdField, file: Type.String({ description: 'Name of the file put into the input.' }) }),
    effect: 'write',
    touches: [{ kind: 'file', ref: 'ref' }],
    check(args) {
      if (!!args.file === !!args.base64) throw new BrowserdError('validation_error', 'give file, or base64 with name', { next: 'Pass one source.' });
      if (args.base64 && !args.name) throw new BrowserdError('validation_error', 'inline content needs a name', { next: 'Pass name, e.g. "report.csv".' });
    },
    async handle(ctx, args, out) {
      let path: string;
      if (args.file) {
        const p = ctx.env.files.path(ctx.user.id, args.file);
        if (!p || !ctx.env.files.info(ctx.user.id, args.file)) throw new BrowserdError('not_found', `no file ${args.file} in your files`, { next: 'List them with GET /v1/files, or pass base64 and name.' });
        path = p;
      } else {
        const data = Buffer.from(args.base64!, 'base64');
        if (data.length > UPLOAD_MAX_BYTES) throw new BrowserdError('validation_error', 'the file is larger than 15 MB', { next: 'Upload a smaller file.' });
        // Kept in the user's own upload area: Chromium reads the file from disk when the page sends it.
        const dir = join(ctx.env.cfg.dataDir, 'uploads', ctx.user.id);
        mkdirSync(dir, { recursive: true });
        path = join(dir, basename(args.name!));
        // Uploads stay on disk and count toward the user's storage quota; the file replaced by name goes.
        ctx.env.storageQuota.check(ctx.user.id, data.length, path);
        writeFileSync(path, data);
      }
      const tab = await ctx.tab(args.tab);
      const info = await tab.call('elementInfo', args.ref);
      if (!(info.tag === 'input' && info.type === 'file')) throw new BrowserdError('action_failed', `${args.ref} is a ${info.tag}${info.type ? `[type=${info.type}]` : ''}, not a file input`, { next: 'Use the ref of the <input type=file>; browser_query{css:"input[type=file]", includeHidden:true} finds hidden ones.' });
      await setInputFiles(tab, args.ref, [path]);
      out.set('tab', tab.id).set('file', basename(path)).text(`Put ${basename(path)} into ${args.ref}. Submit the form to send it.`);
    },
  }),
];
