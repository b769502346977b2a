/**
 * The command line, strictly: each command names the flags it takes, and node:util's parseArgs refuses any
 * other (a misspelt `--listne` is an error with the usage, never a daemon started on the defaults).
 */
import { parseArgs } from 'node:util';
import { SETTINGS } from '../daemon/settings.js';

type Option = { type: 'string' | 'boolean'; short?: string };
type Options = Record<string, Option>;

const str: Option = { type: 'string' };
const bool: Option = { type: 'boolean' };

/** Flags every command takes. */
const COMMON: Options = { help: { type: 'boolean', short: 'h' } };
/** Where the LMDB store is, for commands that open it. */
const DATA: Options = { data: str };

/** What serve (and doctor, which checks the same configuration) reads: the flags of daemon/settings.ts, no other. */
export const SERVE_FLAGS: Options = {
  ...DATA,
  ...Object.fromEntries(SETTINGS.filter((s) => s.flag).map((s) => [s.flag!, s.arg ? str : bool])),
};

export const COMMAND_FLAGS: Record<string, Options> = {
  serve: SERVE_FLAGS,
  doctor: SERVE_FLAGS,
  user: DATA,
  admin: DATA,
  policy: DATA,
  audit: { ...DATA, user: str, limit: str },
  backup: { ...DATA, 'with-vault-key': bool },
  vault: { url: str, token: str, 'token-file': str, 'login-url': str },
  fleet: { dir: str, listen: str, desk: str, 'admin-key': str },
};

export interface Parsed {
  command?: string;
  positionals: string[];
  flags: Record<string, string | boolean>;
}

/** A command line that cannot be taken: the message says why, and the caller shows the usage. */
export class UsageError extends Error {
  constructor(message: string, readonly command?: string) {
    super(message);
  }
}

/**
 * The command (first word), its positionals and flags. Before a command only --help and --version are taken;
 * after it, only that command's flags. `--` ends the flags.
 */
export function parseCommandLine(argv: string[]): Parsed {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) {
    const { values, positionals } = run(argv, { ...COMMON, version: { type: 'boolean', short: 'v' } }, undefined);
    return { command: positionals[0], positionals: positionals.slice(1), flags: values };
  }
  if (first === 'help') return { command: argv[1], positionals: [], flags: { help: true } };
  const own = COMMAND_FLAGS[first];
  if (!own) throw new UsageError(`unknown command "${first}"`);
  const { values, positionals } = run(argv.slice(1), { ...COMMON, ...own }, first);
  return { command: first, positionals, flags: values };
}

function run(args: string[], options: Options, command: string | undefined) {
  try {
    const r = parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: r.values as Record<string, string | boolean>, positionals: r.positionals };
  } catch (e) {
    // node:util's messages name the flag; drop its advice about '--' (our flags never take dash-led values).
    const message = (e as Error).message.split('. To specify')[0].replace(/\.$/, '');
    throw new UsageError(message, command);
  }
}
