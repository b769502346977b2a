/**
 * The words output schemas are written in: which strings a page chose (fenced over MCP), and the fields many
 * results share. Shared by the call pipeline (daemon/tools/output.ts, which fences by these marks) and every
 * feature that describes a result, so a feature need not reach into the pipeline to say "page text".
 */
import { Type, type SchemaOptions, type StringOptions } from '@sinclair/typebox';

/** The schema keyword that marks a string as page text, fenced in MCP structured results. */
export const PAGE_TEXT = 'x-page-text';

/**
 * Text a page controls in bulk (its words, a snapshot, an extract, a file's contents). No length or pattern:
 * over MCP the value arrives inside a fence, still a string.
 */
export const PageText = (options: Omit<StringOptions, 'maxLength' | 'pattern' | 'format'> = {}) => Type.String({ ...options, [PAGE_TEXT]: true });

/**
 * A JSON value whose shape a page (or a model reading one) chose: a field a selector matched, a value a model
 * filled from page text, a task's answer. Any JSON value; over MCP every string in it, however deep, is fenced.
 */
export const PageValue = (options: SchemaOptions = {}) => Type.Unknown({ ...options, [PAGE_TEXT]: true });

/** The schema keyword that marks a record whose names, not only values, the page chose (header names). */
export const PAGE_KEYS = 'x-page-keys';

/**
 * A record whose names a page or a server chose (headers): over MCP each name is fenced like its value. Other
 * records keep plain names, because the caller or the daemon chose them (the attributes asked for, a crawl's
 * field names, our own labels).
 */
export const PageKeyedRecord = (options: SchemaOptions = {}) => Type.Record(Type.String(), PageText(), { ...options, [PAGE_KEYS]: true });

/** Fields many results share. */
export const TabIdField = Type.String({ description: 'Tab id (t1, or <profile>/t1 in a named profile).' });
/** Page text: the page chose it (history.replaceState, a redirect, a hash), so over MCP it arrives fenced. */
export const UrlField = PageText({ description: 'An address as the page reports it.' });
export const TabModeField = Type.Union([Type.Literal('read'), Type.Literal('act')], { description: 'read: no writes reach a site; act: may change things, under the host policy.' });
export const LiveModeField = Type.Union([Type.Literal('interactive'), Type.Literal('view')]);

/** A tab as listings describe it (tabs.ts describeTab). */
export const TabInfo = Type.Object({
  id: TabIdField,
  url: UrlField,
  mode: TabModeField,
  context: Type.Optional(Type.String()),
  profile: Type.Optional(Type.String()),
  allowedDomains: Type.Optional(Type.Array(Type.String())),
  opener: Type.Optional(Type.String({ description: 'The tab that opened this one (a popup).' })),
  default: Type.Boolean({ description: 'Later calls without a tab use this one.' }),
  live_url: Type.Optional(Type.String({ description: "A popup's live link, in the first listing that shows it." })),
});
