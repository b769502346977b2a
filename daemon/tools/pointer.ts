/** Pointer tools: hover, drag, scroll. Real input events, refs resolved to points by the in-page script. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from './snapshot-after.js';
import { params, RefParam, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { afterAction, type Tab } from '../browser/tab.js';
import { mouseMove } from '../browser/input.js';
import { drag, wheel as wheelAt } from '../browser/gestures.js';
import { viewportSize } from '../browser/layout.js';
import { pointForRef } from './input.js';
import { SnapshotOutput, writeSnapshot } from './snapshot.js';
import { TabIdField } from '../call/output.js';

/** Scroll offsets of the page (or of the scrolled element) after the call, in CSS pixels. */
const ScrollState = Type.Object(
  {
    x: Type.Number({ description: 'Horizontal offset.' }),
    y: Type.Number({ description: 'Vertical offset.' }),
    maxX: Type.Number({ description: 'Largest horizontal offset (0: it does not scroll sideways).' }),
    maxY: Type.Number({ description: 'Largest vertical offset: y equal to it means at the end.' }),
  },
  { description: 'Where the page (or the element given as ref) is scrolled to now.' },
);

async function inViewport(tab: Tab, x: number, y: number, which: string) {
  const v = await viewportSize(tab);
  if (x < 0 || y < 0 || x >= v.width || y >= v.height) {
    throw new BrowserdError('validation_error', `the ${which} point (${x}, ${y}) is outside the viewport (${v.width}x${v.height})`, { next: 'Scroll so both ends are visible, or use refs.' });
  }
}

export const pointerTools = [
  defineTool({
    name: 'browser_hover',
    title: 'Hover',
    description: 'Hovers an element; answers a snapshot with new elements (menus, tooltips) marked *.',
    input: params({ ref: RefParam(), tab: TabParam }),
    output: SnapshotOutput,
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const mark = tab.mark();
      // A snapshot first, so "new" means new since just before the hover.
      await tab.call('snapshot', {});
      const { x, y } = await pointForRef(tab, args.ref);
      await mouseMove(tab, x, y);
      await afterAction(tab, mark);
      out.text(`Hovering over ${args.ref}.`);
      await writeSnapshot(tab, out, { markNewSince: true });
    },
  }),
  defineTool({
    name: 'browser_drag',
    title: 'Drag',
    description: 'Drags between elements or viewport points with real pointer events; both ends in the viewport.',
    input: params({
      fromRef: Type.Optional(RefParam()),
      fromX: Type.Optional(Type.Number({ minimum: 0 })),
      fromY: Type.Optional(Type.Number({ minimum: 0 })),
      toRef: Type.Optional(RefParam()),
      toX: Type.Optional(Type.Number({ minimum: 0 })),
      toY: Type.Optional(Type.Number({ minimum: 0 })),
      steps: Type.Optional(Type.Integer({ description: 'Pointer moves. Default 16.', minimum: 1, maximum: 100 })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(Type.Object({ tab: TabIdField })),
    effect: 'write',
    touches: [{ kind: 'drop', ref: 'toRef', point: ['toX', 'toY'] }],
    check(args) {
      const fromPoint = args.fromX !== undefined || args.fromY !== undefined;
      const toPoint = args.toX !== undefined || args.toY !== undefined;
      if (!!args.fromRef === fromPoint || (fromPoint && (args.fromX === undefined || args.fromY === undefined))) throw new BrowserdError('validation_error', 'give fromRef, or fromX and fromY', { next: 'Pass one start.' });
      if (!!args.toRef === toPoint || (toPoint && (args.toX === undefined || args.toY === undefined))) throw new BrowserdError('validation_error', 'give toRef, or toX and toY', { next: 'Pass one end.' });
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const mark = tab.mark();
      const from = args.fromRef ? await pointForRef(tab, args.fromRef) : { x: args.fromX!, y: args.fromY! };
      // Resolving the target may scroll; resolve the start again afterwards so both points are current.
      const to = args.toRef ? await pointForRef(tab, args.toRef) : { x: args.toX!, y: args.toY! };
      const start = args.fromRef ? await pointForRef(tab, args.fromRef) : from;
      await inViewport(tab, start.x, start.y, 'start');
      await inViewport(tab, to.x, to.y, 'end');
      const steps = args.steps ?? 16;
      await drag(tab, start, to, steps, ctx.signal);
      ctx.checkCancelled();
      await afterAction(tab, mark);
      out.set('tab', tab.id).text(`Dragged from (${Math.round(start.x)}, ${Math.round(start.y)}) to (${Math.round(to.x)}, ${Math.round(to.y)}) in ${steps} steps.`);
    },
  }),
  defineTool({
    name: 'browser_scroll',
    title: 'Scroll',
    description: 'Scrolls the page or an element (ref) by amount, to toRef, or to the top or end, with real wheel events.',
    input: params({
      ref: Type.Optional(RefParam()),
      direction: Type.Optional(StringEnum(['down', 'up', 'left', 'right'] as const)),
      amount: Type.Optional(Type.Integer({ description: 'CSS px. Default one viewport.', minimum: 1, maximum: 100000 })),
      toRef: Type.Optional(RefParam()),
      to: Type.Optional(StringEnum(['top', 'end'], { description: 'end repeats while content loads.' })),
      snapshot: SnapshotAfterParam,
      tab: TabParam,
    }),
    output: withSnapshotAfter(Type.Object({ tab: TabIdField, scroll: ScrollState })),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    async handle(ctx, args, out) {
      if (args.toRef && (args.to || args.amount || args.direction)) throw new BrowserdError('validation_error', 'toRef goes alone', { next: 'Pass toRef, or direction/amount, or to.' });
      const tab = await ctx.tab(args.tab);
      const mark = tab.mark();
      if (args.toRef) {
        await pointForRef(tab, args.toRef).catch((e) => {
          if (e instanceof BrowserdError && e.code === 'refused' && e.details?.reason === 'covered') return undefined; // in view, just covered
          throw e;
        });
        const s = await tab.call('scrollState');
        out.set('tab', tab.id).set('scroll', s).text(`${args.toRef} is in view; page scrolled to y=${Math.round(s.y)}.`);
        return;
      }
      const v = await viewportSize(tab);
      const at = args.ref ? await pointForRef(tab, args.ref).catch(() => ({ x: v.width / 2, y: v.height / 2 })) : { x: v.width / 2, y: v.height / 2 };
      // A wheel event is acknowledged before the compositor has applied the scroll: wait until the position
      // moves (or cannot: already at the edge), bounded, so the position we report is the real one.
      const wheel = async (dx: number, dy: number) => {
        const before = await tab.call('scrollState', args.ref);
        await wheelAt(tab, at, dx, dy);
        const atEdge = (dy > 0 && before.y >= before.maxY - 1) || (dy < 0 && before.y <= 0) || (dx > 0 && before.x >= before.maxX - 1) || (dx < 0 && before.x <= 0);
        for (let i = 0; i < 50 && !atEdge; i++) {
          const now = await tab.call('scrollState', args.ref);
          if (now.x !== before.x || now.y !== before.y) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      if (args.to) {
        let last = await tab.call('scrollState', args.ref);
        for (let i = 0; i < 50; i++) {
          ctx.checkCancelled();
          const step = tab.mark();
          await wheel(0, args.to === 'end' ? Math.max(v.height, last.maxY - last.y) : -Math.max(v.height, last.y));
          await afterAction(tab, step);
          const now = await tab.call('scrollState', args.ref);
          const done = args.to === 'end' ? now.y >= now.maxY - 1 && now.maxY === last.maxY : now.y <= 0;
          last = now;
          if (done) break;
        }
        out.set('tab', tab.id).set('scroll', last).text(`Scrolled ${args.ref ?? 'the page'} to the ${args.to} (y=${Math.round(last.y)} of ${Math.round(last.maxY)}).`);
        return;
      }
      const dir = args.direction ?? 'down';
      const amount = args.amount ?? (dir === 'left' || dir === 'right' ? v.width : v.height);
      const dx = dir === 'right' ? amount : dir === 'left' ? -amount : 0;
      const dy = dir === 'down' ? amount : dir === 'up' ? -amount : 0;
      await wheel(dx, dy);
      await afterAction(tab, mark);
      const s = await tab.call('scrollState', args.ref);
      out.set('tab', tab.id).set('scroll', s).text(`Scrolled ${args.ref ?? 'the page'} ${dir} by ${amount}px; now at x=${Math.round(s.x)}, y=${Math.round(s.y)} of ${Math.round(s.maxY)}.`);
    },
  }),
];
