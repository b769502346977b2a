/** browserd CLI: thin — parse arguments, call daemon/ or storage/, print. */
import { parseCommandLine, UsageError } from './args.js';
import { VERSION } from '../daemon/version.js';
import { loadConfig, defaultDataDir } from '../daemon/config.js';
import { openDb } from '../storage/db.js';
import { UserStore } from '../storage/users.js';
import { AuditStore } from '../storage/audit.js';
import { USER_NAME } from '../protocol/ids.js';
import { runDoctor } from './doctor.js';
import { PolicyStore } from '../storage/policies.js';
import { validateHostRules, type HostAccess } from '../daemon/policy/host-policy.js';
import { runningDaemon } from '../daemon/data-dir-lock.js';
import { VAULT_USAGE, vaultCommand } from './vault-cli.js';
import { FLEET_USAGE, fleetCommand } from './fleet-cli.js';
import { SERVE_USAGE } from './serve-usage.js';
import { backupDataDir, BackupError } from '../storage/backup.js';
import { join } from 'node:path';

/** Each command's usage, shown by `browserd <command> --help` and, all together, by `browserd --help`. */
const USAGES: Record<string, string> = {
  serve: SERVE_USAGE,
  user: `  browserd user add NAME        create a user; its token is the last line printed
  browserd user token NAME      replace a user's token (the old one stops working)
  browserd user list
  browserd user disable NAME    refuse the user's token and links everywhere until enabled; a running daemon
                                stops the user's browsers within seconds; nothing is deleted
  browserd user enable NAME
  browserd user approvals NAME on|off   sensitive actions then return needsApproval (default off)
      [--data DIR]
`,
  admin: `  browserd admin key            replace and print the admin key (for /v1/admin/* and the console) [--data DIR]
`,
  policy: `  browserd policy list USER
  browserd policy set USER PATTERN read_only|blocked|allowed   (PATTERN: example.com, *.example.com or *)
  browserd policy remove USER PATTERN
      [--data DIR]
`,
  audit: `  browserd audit [--user NAME] [--limit N] [--data DIR]
`,
  backup: `  browserd backup DIR [--with-vault-key] [--data DIR]
      Copies the data dir into DIR (new or empty) while the daemon runs: the store as of one instant, then the
      profiles, files, uploads and cached responses. The vault key is left out unless --with-vault-key: keep it apart from the copy.
`,
  vault: VAULT_USAGE,
  fleet: FLEET_USAGE,
  doctor: `  browserd doctor [--listen HOST:PORT] [--data DIR] [any serve flag]
      Checks Node, Chromium and its sandbox, the data dir, LMDB, the vault key and the port; changes nothing.
`,
};

const HEADER = `browserd ${VERSION}: one real, persistent Chromium per user, for AI agents (MCP) and programs (REST)

Usage:
`;
const USAGE = `${HEADER}${Object.values(USAGES).join('')}  browserd --version | --help | <command> --help
`;

function die(msg: string): never {
  process.stderr.write(`browserd: ${msg}\n`);
  process.exit(2);
}

/** The data dir a command works on: --data, else BROWSERD_DATA, else the default. */
const dataDirOf = (flags: Record<string, string | boolean>): string => String(flags.data ?? process.env.BROWSERD_DATA ?? defaultDataDir());

async function withStore<T>(flags: Record<string, string | boolean>, fn: (users: UserStore, audit: AuditStore) => Promise<T>): Promise<T> {
  const db = openDb(dataDirOf(flags));
  try {
    return await fn(new UserStore(db), new AuditStore(db));
  } finally {
    await db.close();
  }
}

/** How long a policy change waits for a running daemon to put it in force in its open tabs. */
const POLICY_APPLY_WAIT_MS = 10_000;

/**
 * With a daemon running on the data dir, waits until it has put the rules of change `version` in force in its
 * open tabs (it writes back the count it applied), so what this command then reports is true of them.
 */
async function untilDaemonApplies(dataDir: string, store: PolicyStore, version: number): Promise<void> {
  const daemon = runningDaemon(dataDir);
  if (!daemon) return;
  const deadline = Date.now() + POLICY_APPLY_WAIT_MS;
  while (store.appliedVersion() < version) {
    // A daemon that ended meanwhile starts again under the stored rules.
    if (!runningDaemon(dataDir)) return;
    if (Date.now() > deadline) {
      die(`the rule is stored, but the daemon running on ${dataDir} (pid ${daemon.pid}) did not confirm it applies it to open tabs within ${POLICY_APPLY_WAIT_MS / 1000} s: check its log, or restart it`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`browserd: ${e.message}\n\n${e.command ? `${HEADER}${USAGES[e.command]}` : USAGE}`);
    process.exit(2);
  }
  const { command: cmd, positionals: rest, flags } = parsed;
  if (flags.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (!cmd || flags.help) {
    process.stdout.write(cmd && USAGES[cmd] ? `${HEADER}${USAGES[cmd]}` : USAGE);
    return;
  }
  const positionals = [cmd, ...rest];
  const [, sub, name] = positionals;
  switch (cmd) {
    case 'serve':
      return (await import('./serve.js')).serve(flags);
    case 'user': {
      if (sub === 'list') {
        const list = await withStore(flags, async (u) => u.list());
        for (const u of list) console.log(`${u.name}\tcreated ${u.createdAt}\tapprovals ${u.approvals ? 'on' : 'off'}${u.disabled ? '\tdisabled' : ''}`);
        if (!list.length) console.log('no users; add one with `browserd user add NAME`');
        return;
      }
      if (sub === 'approvals') {
        const v = positionals[3];
        if (!name || (v !== 'on' && v !== 'off')) die('use: browserd user approvals NAME on|off');
        await withStore(flags, async (u) => {
          try {
            await u.update(name, { approvals: v === 'on' });
          } catch (e) {
            die((e as Error).message);
          }
        });
        console.log(`Approvals for ${name} are ${v}.`);
        return;
      }
      if (sub === 'disable' || sub === 'enable') {
        if (!name) die(`use: browserd user ${sub} NAME`);
        await withStore(flags, async (u) => {
          try {
            await u.update(name, { disabled: sub === 'disable' });
          } catch (e) {
            die((e as Error).message);
          }
        });
        // A running daemon reads the flag on the next request; the browser it runs stops when idle (the admin
        // console stops it at once).
        console.log(sub === 'disable' ? `Disabled ${name}: its token and links are refused from now on; a running daemon stops its browsers within seconds.` : `Enabled ${name}: its token works again.`);
        return;
      }
      if (sub !== 'add' && sub !== 'token') die(`unknown 'user ${sub ?? ''}'; use add, token, list, disable or enable`);
      if (!name || !USER_NAME.test(name)) die('a user name is 1-64 lowercase letters, digits, ".", "_" or "-"');
      const token = await withStore(flags, async (u) => {
        try {
          return sub === 'add' ? (await u.add(name)).token : await u.replaceToken(name);
        } catch (e) {
          die((e as Error).message);
        }
      });
      console.log(sub === 'add' ? `Created user ${name}. Its token (shown once; keep it like a password):` : `Replaced the token of ${name}; the old one no longer works. New token:`);
      console.log(token);
      return;
    }
    case 'policy': {
      const [, , user, pattern, access] = positionals;
      if (!user) die('use: browserd policy list|set|remove USER ...');
      const dataDir = dataDirOf(flags);
      const db = openDb(dataDir);
      try {
        if (!new UserStore(db).get(user)) die(`no user ${user}`);
        const store = new PolicyStore(db);
        if (sub === 'list') {
          const rules = store.rules(user);
          for (const r of rules) console.log(`${r.pattern}\t${r.access}`);
          if (!rules.length) console.log('no host rules: each tab\'s mode decides');
        } else if (sub === 'set') {
          const problems = validateHostRules([{ pattern, access }]);
          if (problems.length) die(problems.join('; '));
          const { version } = await store.upsert(user, { pattern: pattern!, access: access as HostAccess });
          await untilDaemonApplies(dataDir, store, version);
          console.log(`${pattern} is ${access} for ${user}.`);
        } else if (sub === 'remove') {
          if (!pattern) die('use: browserd policy remove USER PATTERN');
          const version = await store.remove(user, pattern);
          if (version !== undefined) await untilDaemonApplies(dataDir, store, version);
          console.log(version !== undefined ? `Removed ${pattern} for ${user}.` : `No rule for ${pattern}.`);
        } else die(`unknown 'policy ${sub}'; use list, set or remove`);
      } finally {
        await db.close();
      }
      return;
    }
    case 'admin': {
      if (sub !== 'key') die("use 'browserd admin key'");
      const key = await withStore(flags, (u) => u.replaceAdminKey());
      console.log('New admin key (for /v1/admin/*; the old one no longer works):');
      console.log(key);
      return;
    }
    case 'audit': {
      const limit = Number(flags.limit ?? 50);
      const entries = await withStore(flags, async (_u, a) => (flags.user ? a.page(String(flags.user), { limit }).entries : a.all(limit)));
      for (const e of entries) console.log(JSON.stringify(e));
      return;
    }
    case 'backup': {
      if (!sub || positionals.length > 2) die('use: browserd backup DIR [--with-vault-key] [--data DIR]');
      const dataDir = dataDirOf(flags);
      try {
        const s = await backupDataDir(dataDir, sub, { withVaultKey: flags['with-vault-key'] === true });
        console.log(`Copied ${dataDir} to ${s.to}: the store (${Math.round(s.storeBytes / 1024)} KB), ${s.profiles} profile(s), ${Math.round(s.fileBytes / 1024)} KB of files, uploads and cached responses; vault key ${s.vaultKey}.`);
        if (s.vaultKey === 'left out') console.log(`Keep ${join(dataDir, 'vault.key')} (or BROWSERD_VAULT_KEY) safe apart from the copy: without it the vault in the copy cannot be read.`);
      } catch (e) {
        if (e instanceof BackupError) die(e.message);
        throw e;
      }
      return;
    }
    case 'vault':
      return vaultCommand(positionals.slice(1), flags);
    case 'fleet':
      return fleetCommand(positionals.slice(1), flags, die);
    case 'doctor': {
      const cfg = loadConfig(flags);
      const ok = await runDoctor(cfg);
      process.exit(ok ? 0 : 1);
    }
    default:
      die(`unknown command "${cmd}"; run 'browserd help'`);
  }
}

await main();
