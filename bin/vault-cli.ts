/**
 * `browserd vault ...`: the user's vault through the running daemon's REST API, with the user's own token
 * (the daemon holds the key; this command never opens the store). A value is read from stdin or typed at a
 * prompt that does not echo it, never taken from the command line, where ps and shell history would keep it.
 */
import { readFileSync } from 'node:fs';
import { parseListen } from '../daemon/config.js';

export const VAULT_USAGE = `  browserd vault set NAME FIELD [--login-url URL]   the value from stdin (piped) or a prompt that does not echo
  browserd vault set NAME --login-url URL           only the login URL
  browserd vault list                               entries, kinds and field names (never a value)
  browserd vault rm NAME [FIELD]                    delete an entry, or one of its fields
      NAME is the site's host (github.com): values are filled only there and on its sub-domains, and a login
      URL must be on it. Any other NAME is bound to the host of the --login-url it is created with, for good.
      Talks to the running daemon: --url URL or BROWSERD_URL (default http://127.0.0.1:8787, or BROWSERD_LISTEN),
      with your token from --token-file PATH, BROWSERD_TOKEN or --token TOKEN.
`;

type Flags = Record<string, string | boolean>;

class CliError extends Error {
  constructor(message: string, readonly next?: string) {
    super(message);
  }
}

function daemonUrl(flags: Flags): string {
  const explicit = typeof flags.url === 'string' ? flags.url : process.env.BROWSERD_URL;
  if (explicit) return explicit.replace(/\/+$/, '');
  const { host, port } = parseListen(process.env.BROWSERD_LISTEN ?? '127.0.0.1:8787');
  // A daemon listening on every address is reached on loopback from its own host.
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}

function token(flags: Flags): string {
  if (typeof flags['token-file'] === 'string') {
    try {
      return readFileSync(flags['token-file'], 'utf8').trim();
    } catch (e) {
      throw new CliError(`cannot read the token file ${flags['token-file']}: ${(e as Error).message}`);
    }
  }
  const t = (typeof flags.token === 'string' ? flags.token : undefined) ?? process.env.BROWSERD_TOKEN;
  if (!t) throw new CliError('no token', 'Pass --token-file PATH or set BROWSERD_TOKEN to your browserd token (an admin issues one with `browserd user token NAME`).');
  return t.trim();
}

async function api(flags: Flags, method: string, path: string, body?: unknown): Promise<any> {
  const url = `${daemonUrl(flags)}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token(flags)}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot reach the daemon at ${daemonUrl(flags)} (${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message})`, 'Start it with `browserd serve`, or point --url / BROWSERD_URL at it.');
  }
  const json = (await res.json().catch(() => undefined)) as any;
  if (!res.ok || !json?.ok) throw new CliError(json?.error?.message ?? `the daemon answered ${res.status}`, json?.error?.next);
  return json;
}

/** All of piped stdin, less the one line ending `echo` or a file adds. */
async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Reads one line from the terminal without echoing it. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Echo off before the prompt shows: what is typed the moment the prompt appears must not be echoed either.
    stdin.setRawMode(true);
    process.stderr.write(question);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new CliError('cancelled; nothing was saved'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readValue(name: string, field: string): Promise<string> {
  const value = process.stdin.isTTY ? await prompt(`Value of ${field} for ${name} (not shown): `) : await readPiped();
  if (!value) throw new CliError('the value is empty; nothing was saved', 'Pipe the value in (printf %s "$VALUE" | browserd vault set ...) or type it at the prompt.');
  return value;
}

async function run(args: string[], flags: Flags) {
  const [sub, name, field, extra] = args;
  const path = (...parts: string[]) => `/v1/vault/${parts.map(encodeURIComponent).join('/fields/')}`;
  if (sub === 'list') {
    const { entries } = await api(flags, 'GET', '/v1/vault');
    for (const e of entries) {
      const where = e.kind === 'otp_inbox' ? (e.inbox === 'imap' ? `imap ${e.imapHost}` : `sms ${e.forwardUrl}`) : (e.loginUrl ?? '');
      console.log(`${e.name}\t${e.kind}\t${e.fields.join(',') || '-'}\t${where}`);
    }
    if (!entries.length) console.log('the vault is empty; add a value with `browserd vault set NAME FIELD`');
    return;
  }
  if (sub === 'set') {
    if (!name) throw new CliError('use: browserd vault set NAME FIELD [--login-url URL]');
    // A value on the command line would sit in ps output and shell history: refuse it rather than use it.
    if (extra !== undefined) throw new CliError('the value is never taken from the command line; nothing was saved', 'Pipe it in or type it at the prompt: browserd vault set NAME FIELD');
    const loginUrl = typeof flags['login-url'] === 'string' ? flags['login-url'] : undefined;
    if (!field && !loginUrl) throw new CliError('name a FIELD to set, or --login-url URL', 'For example: browserd vault set github.com password');
    const body = { ...(loginUrl ? { loginUrl } : {}), ...(field ? { fields: { [field]: await readValue(name, field) } } : {}) };
    const { entry } = await api(flags, 'PUT', path(name), body);
    console.log(`Saved ${field ? `${field} of ` : 'the login URL of '}${entry.name}; it holds ${entry.fields.join(', ') || 'no fields'}.`);
    return;
  }
  if (sub === 'rm') {
    if (!name || extra !== undefined) throw new CliError('use: browserd vault rm NAME [FIELD]');
    await api(flags, 'DELETE', field ? path(name, field) : path(name));
    console.log(field ? `Deleted ${field} of ${name}.` : `Deleted ${name}.`);
    return;
  }
  throw new CliError(`unknown 'vault ${sub ?? ''}'; use set, list or rm`);
}

export async function vaultCommand(args: string[], flags: Flags) {
  try {
    await run(args, flags);
  } catch (e) {
    const err = e instanceof CliError ? e : new CliError((e as Error).message);
    process.stderr.write(`browserd: ${err.message}\n${err.next ? `next: ${err.next}\n` : ''}`);
    process.exit(2);
  }
}
