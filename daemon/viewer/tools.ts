/** browser_viewer: a live link to a tab, for a person to watch (or take over) what the agent does. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { createLiveLink } from './index.js';
import { LiveModeField, TabIdField } from '../call/output.js';

export const viewerTools = [
  defineTool({
    name: 'browser_viewer',
    title: 'Live link to a tab',
    description:
      "A live link to the user's browser with this tab in front, for a person; it expires within minutes unless open.",
    input: params({
      tab: TabParam,
      mode: Type.Optional(StringEnum(['interactive', 'view'], { description: 'interactive (default where take-over is allowed) or view.' })),
    }),
    output: Type.Object({
      tab: TabIdField,
      live_url: Type.String({ description: 'The live link to give the person.' }),
      live: LiveModeField,
      expiresAt: Type.String({ description: 'When the link expires unless a viewer has it open (ISO 8601).' }),
    }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    needsBrowser: false,
    openWorld: false,
    async handle(ctx, args, out) {
      const id = args.tab ?? ctx.defaultTabId();
      if (!id) throw new BrowserdError('not_found', 'there is no open tab', { next: 'Open one with browser_open.' });
      const link = createLiveLink(ctx.env, ctx.user.id, id, { mode: args.mode });
      out.set('tab', id).set('live_url', link.url).set('live', link.mode).set('expiresAt', link.expiresAt);
      if (args.mode === 'interactive' && link.mode === 'view') out.text("This account does not allow take-over, so the link is view-only.");
      out.text(`Live link to ${id} (${link.mode}, opens until ${link.expiresAt} unless a viewer is connected): ${link.url}`);
    },
  }),
];
