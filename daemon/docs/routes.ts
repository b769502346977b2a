/**
 * POST /v1/convert: browser_convert over REST. A JSON body is the tool's arguments; a multipart/form-data body
 * carries the upload in part `file` (at most 15 MB) and the other arguments as fields. Either way the call goes
 * through the one dispatch (validation, audit, response builder): an upload becomes the tool's base64
 * argument, which the audit keeps by size only.
 */
import BusboyImport from '@fastify/busboy';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { DOC_MAX_BYTES } from './types.js';
import { readBody, type Req } from '../http/exchange.js';
import { runTool, toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import type { RouteSpec } from '../server/routes.js';


export const CONVERT_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/convert', auth: 'user', summary: 'Convert a document to Markdown or text (as browser_convert): a JSON body with the same arguments, or multipart/form-data with the upload in part "file" (15 MB)', body: { tool: 'browser_convert' } },
];


const Busboy = BusboyImport as unknown as typeof import('@fastify/busboy').default;

/** The upload may be as large as any document browser_convert takes; the rest of the form is a few short fields. */
const UPLOAD_MAX_BYTES = DOC_MAX_BYTES;
const FORM_MAX_BYTES = UPLOAD_MAX_BYTES + 256 * 1024;

const bad = (message: string, next = 'Send the document in part "file" of a multipart/form-data body, with converter, format, maxChars or store as fields.') =>
  new BrowserdError('validation_error', message, { next });

/** Form fields are text; the tool's schema wants numbers and booleans where it says so. */
function typedField(name: string, value: string): unknown {
  if (name === 'maxChars') return /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (name === 'store') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

export function parseConvertForm(headers: Record<string, string>, body: Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let bb;
    try {
      bb = Busboy({ headers: headers as never, limits: { files: 1, fileSize: UPLOAD_MAX_BYTES, fields: 12, fieldSize: 4096, parts: 14 } });
    } catch (e) {
      return reject(bad(`the multipart body cannot be read: ${(e as Error).message}`));
    }
    const args: Record<string, unknown> = {};
    let file: Buffer | undefined;
    let failed: BrowserdError | undefined;
    const fail = (e: BrowserdError) => void (failed ??= e);
    bb.on('file', (field, stream, filename) => {
      if (field !== 'file') {
        stream.resume();
        return fail(bad(`the upload must be in part "file", not "${field.slice(0, 40)}"`));
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(new BrowserdError('payload_too_large', 'the upload is larger than 15 MB, the most a conversion takes', { next: 'Convert a smaller document, or put it at a URL.' })));
      stream.on('end', () => {
        file = Buffer.concat(chunks);
        if (filename && args.name === undefined) args.name = filename;
      });
    });
    bb.on('field', (name, value, _nt, valueTruncated) => {
      if (valueTruncated) return fail(bad(`field ${name.slice(0, 40)} is too long`));
      if (name === 'base64' || name === 'file' || name === 'url') return fail(bad(`field "${name}" does not go with an upload`));
      args[name] = typedField(name, value);
    });
    bb.on('filesLimit', () => fail(bad('send one file per call')));
    bb.on('partsLimit', () => fail(bad('the form has too many parts')));
    bb.on('fieldsLimit', () => fail(bad('the form has too many fields')));
    bb.on('error', (e: unknown) => fail(bad(`the multipart body cannot be read: ${(e as Error)?.message ?? e}`)));
    bb.on('finish', () => {
      if (failed) return reject(failed);
      if (!file) return reject(bad('no file: the upload goes in part "file"'));
      if (!file.length) return reject(bad('the uploaded file is empty', 'Send a file with something in it.'));
      // The upload keeps the name it came with: that name's extension tells the type.
      args.name ??= 'upload';
      args.base64 = file.toString('base64');
      resolve(args);
    });
    bb.end(body);
  });
}

export function convertHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  return {
    'POST /v1/convert': async (r: Req, u: UserRecord | undefined) => {
      const user = u!;
      const type = (r.headers['content-type'] ?? '').toLowerCase();
      const args = type.startsWith('multipart/form-data')
        ? await parseConvertForm(r.headers, await readBody(r, FORM_MAX_BYTES))
        : await toolBody(server, r, user, 'browser_convert');
      return runTool(server, r, user, 'browser_convert', args);
    },
  };
}
