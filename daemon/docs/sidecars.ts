/**
 * The two optional converters an admin can run beside the daemon for types we do not read ourselves (old
 * .doc/.xls/.ppt, EPUB, RTF, OpenDocument...). Both are reached at the address the admin set, so they skip the
 * pages' egress guard; neither sees anything but the document. Unset is not_configured; slow is timeout.
 *   markitdown-mcp: an MCP server over Streamable HTTP, tool `convert_to_markdown{uri}` given a data: URI.
 *   docling-serve: `POST /v1/convert/file`, the file in multipart part `files`, Markdown at document.md_content.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { Config } from '../config.js';

type SidecarConfig = Pick<Config, 'markitdownUrl' | 'doclingUrl' | 'converterTimeoutMs'>;

export interface SidecarInput { bytes: Buffer; fileName: string; mime: string }

const unreachable = (which: string, e: unknown) =>
  new BrowserdError('navigation_failed', `the ${which} converter did not answer: ${((e as Error)?.message ?? String(e)).slice(0, 200)}`, {
    next: 'Try again later; if it repeats, tell the admin the converter is down.',
  });
const slow = (which: string, ms: number) =>
  new BrowserdError('timeout', `the ${which} converter took longer than ${Math.round(ms / 1000)} s`, { next: 'Convert a smaller document, or try again later.' });

function bounded(cfg: SidecarConfig, signal?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(cfg.converterTimeoutMs);
  return signal ? AbortSignal.any([t, signal]) : t;
}

export async function convertWithMarkitdown(cfg: SidecarConfig, input: SidecarInput, signal?: AbortSignal): Promise<string> {
  if (!cfg.markitdownUrl) throw new BrowserdError('not_configured', 'no markitdown converter is set up on this server', { next: 'Use converter "builtin" or "auto", or ask the admin to set BROWSERD_MARKITDOWN_URL.' });
  const stop = bounded(cfg, signal);
  const client = new Client({ name: 'browserd', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(cfg.markitdownUrl), { requestInit: { signal: stop } });
  try {
    await client.connect(transport, { signal: stop, timeout: cfg.converterTimeoutMs });
    const uri = `data:${input.mime};name=${encodeURIComponent(input.fileName)};base64,${input.bytes.toString('base64')}`;
    const result = await client.callTool({ name: 'convert_to_markdown', arguments: { uri } }, undefined, { signal: stop, timeout: cfg.converterTimeoutMs });
    const parts = (result.content as { type: string; text?: string }[] | undefined) ?? [];
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n');
    // The converter's words can quote the document: the error's page text.
    if (result.isError) throw new BrowserdError('validation_error', "markitdown could not convert the file (its words are the page text of this error)", { next: 'Check the file, or try converter "docling".', pageText: text.slice(0, 300) });
    return text;
  } catch (e) {
    if (e instanceof BrowserdError) throw e;
    if (stop.aborted && !signal?.aborted) throw slow('markitdown', cfg.converterTimeoutMs);
    throw unreachable('markitdown', e);
  } finally {
    await client.close().catch(() => {});
  }
}

export async function convertWithDocling(cfg: SidecarConfig, input: SidecarInput, signal?: AbortSignal): Promise<string> {
  if (!cfg.doclingUrl) throw new BrowserdError('not_configured', 'no docling converter is set up on this server', { next: 'Use converter "builtin" or "auto", or ask the admin to set BROWSERD_DOCLING_URL.' });
  const stop = bounded(cfg, signal);
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(input.bytes)], { type: input.mime }), input.fileName);
  form.append('to_formats', 'md');
  let res: Response;
  try {
    res = await fetch(`${cfg.doclingUrl}/v1/convert/file`, { method: 'POST', body: form, signal: stop, headers: { accept: 'application/json' } });
  } catch (e) {
    if (stop.aborted && !signal?.aborted) throw slow('docling', cfg.converterTimeoutMs);
    throw unreachable('docling', e);
  }
  let body: { document?: { md_content?: unknown }; errors?: unknown; detail?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch (e) {
    if (stop.aborted && !signal?.aborted) throw slow('docling', cfg.converterTimeoutMs);
    throw unreachable('docling', new Error(`HTTP ${res.status}, not JSON`));
  }
  const md = body.document?.md_content;
  if (!res.ok || typeof md !== 'string') {
    const why = JSON.stringify(body.errors ?? body.detail ?? `HTTP ${res.status}`).slice(0, 300);
    if (res.status >= 500) throw unreachable('docling', new Error(why));
    throw new BrowserdError('validation_error', "docling could not convert the file (its words are the page text of this error)", { next: 'Check the file, or try converter "markitdown".', pageText: why });
  }
  return md;
}
