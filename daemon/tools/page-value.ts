/**
 * A JSON value a page (or a model reading one) chose the shape of: a CSS field's match, a value a model filled
 * from page text, a task's answer. Its shape is open, so the schema says so (any JSON value); it carries the
 * page-text mark so that over MCP a string value arrives fenced like any page text. Strings nested inside an
 * array or object value are not reached by that mark (output.ts walks marks by schema, and an open value has
 * no sub-schema); they lose fence markers there like every other string.
 */
import { Type, type SchemaOptions } from '@sinclair/typebox';
import { PAGE_TEXT } from './output.js';

export const PageValue = (options: SchemaOptions = {}) => Type.Unknown({ ...options, [PAGE_TEXT]: true });
