/**
 * Exports of an API map for use outside browserd: OpenAPI 3.1, a HAR of example requests, curl, Python
 * (requests) and TypeScript. Secrets never leave as values: each format writes environment placeholders
 * (export-request.ts). Output is deterministic for one map (endpoints sorted by path, method, id) so a test or
 * a diff can compare two exports.
 */
import { API_EXPORT_FORMATS, type ApiEndpoint, type ApiExportFormat, type ApiMap } from '../../../protocol/api-map.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { exportHar } from './export-har.js';
import { exportOpenApi } from './export-openapi.js';
import { exportSnippets } from './export-snippet.js';
import { exportTypeScript } from './export-typescript.js';
import { VERSION } from '../../version.js';


export interface ApiExport {
  format: ApiExportFormat;
  fileName: string;
  mimeType: string;
  text: string;
}

const FILES: Record<ApiExportFormat, { ext: string; mimeType: string }> = {
  openapi: { ext: 'openapi.json', mimeType: 'application/json' },
  har: { ext: 'har', mimeType: 'application/json' },
  curl: { ext: 'sh', mimeType: 'text/x-shellscript' },
  python: { ext: 'py', mimeType: 'text/x-python' },
  typescript: { ext: 'ts', mimeType: 'text/plain' },
};

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'api';

export function sortedEndpoints(map: ApiMap): ApiEndpoint[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...map.endpoints].sort((a, b) => cmp(a.path, b.path) || cmp(a.method, b.method) || cmp(a.id, b.id));
}

/** The endpoint named by id; failing that, by "METHOD /path" or GraphQL operation name when that is unique. */
export function findEndpoint(map: ApiMap, name: string): ApiEndpoint {
  const exact = map.endpoints.find((e) => e.id === name);
  if (exact) return exact;
  const loose = map.endpoints.filter((e) => `${e.method} ${e.path}`.toLowerCase() === name.toLowerCase() || e.operation?.name === name);
  if (loose.length === 1) return loose[0]!;
  throw new BrowserdError('not_found', `The map ${map.id} has no endpoint "${name}"${loose.length > 1 ? ' that is unique (several match)' : ''}.`, {
    next: 'Use an endpoint id from browser_api_map {action: "get"}.',
    details: { endpoint: name },
  });
}

export async function exportApiMap(map: ApiMap, format: ApiExportFormat, opts: { endpoint?: string } = {}): Promise<ApiExport> {
  if (!(API_EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new BrowserdError('validation_error', `format must be one of ${API_EXPORT_FORMATS.join(', ')}.`, { next: 'Pick one of the listed formats.', details: { parameter: 'format' } });
  }
  const one = opts.endpoint !== undefined ? findEndpoint(map, opts.endpoint) : undefined;
  const endpoints = one ? [one] : sortedEndpoints(map);
  let text: string;
  if (format === 'openapi') text = exportOpenApi(map, endpoints);
  else if (format === 'har') text = exportHar(map, endpoints, VERSION);
  else if (format === 'typescript') text = await exportTypeScript(map, endpoints);
  else text = exportSnippets(map, endpoints, format, Boolean(one));
  const { ext, mimeType } = FILES[format];
  return { format, fileName: `${slug(map.name)}${one ? `-${slug(one.id)}` : ''}.${ext}`, mimeType, text };
}
