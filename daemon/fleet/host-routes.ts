/**
 * What one host of a fleet offers the fleet's commands, under the admin key: how it stands (its vault key's
 * fingerprint, its users against its browser maximum), and the steps of moving a user to another host: hold
 * (stop everything of theirs and tell their calls to retry), archive (the user whole, streamed), import (on the
 * new host), release (a move given up) and remove (once the router sends them to the new host). A host knows
 * nothing else of the fleet; the order of the steps is the fleet command's (fleet.ts).
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson, sendStream, type Req } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import type { ServerDeps } from '../server/deps.js';
import * as S from '../server/route-schemas.js';
import { Type } from '@sinclair/typebox';
import { exportUser, placeFiles, readArchive, removeUserDirs } from './user-archive.js';
import { clashingRow, putUserRows, removeUserRows } from '../../storage/user-rows.js';
import type { UserRecord } from '../../storage/users.js';

const NamePath = S.FilePath;
const HoldQuery = Type.Object({ to: Type.Optional(Type.String({ maxLength: 64, description: 'The host the user is moving to, for the record' })) });
const ImportQuery = Type.Object({ vaultKey: Type.Optional(Type.String({ pattern: '^[0-9a-f]{16}$', description: "The sending host's vault key fingerprint: refused when it is not this host's" })) });

export const FLEET_HOST_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/admin/fleet/host', auth: 'admin', summary: "How this host stands for a fleet (admin key): its vault key's fingerprint (hosts of a fleet share the key), its users and its browser maximum" },
  { method: 'POST', path: '/v1/admin/users/{name}/hold', auth: 'admin', summary: "Start moving a user away (admin key): their browsers, sessions, viewers and tasks stop, and their calls answer 503 browser_capacity with Retry-After until the move ends", params: NamePath, query: HoldQuery },
  { method: 'POST', path: '/v1/admin/users/{name}/release', auth: 'admin', summary: 'Give up moving a user (admin key): they are served here again', params: NamePath },
  { method: 'GET', path: '/v1/admin/users/{name}/archive', auth: 'admin', summary: 'A held user, whole (admin key): their rows of the store and their profiles, files, uploads and cached responses, as one stream', params: NamePath },
  { method: 'POST', path: '/v1/admin/users/import', auth: 'admin', summary: "Take in a user's archive from another host of the fleet (admin key); refused when the user is here already or the vault keys differ", body: { handler: "a user archive (GET /v1/admin/users/{name}/archive of another host), streamed to disk: it holds whole browser profiles, past any JSON body's size" }, query: ImportQuery },
  { method: 'DELETE', path: '/v1/admin/users/{name}', auth: 'admin', summary: 'Remove a held user who has moved to another host (admin key): their rows and directories here', params: NamePath },
];

/** A fingerprint of the vault key that says nothing of it: equal on two hosts exactly when their keys are. */
function vaultFingerprint(server: ServerDeps): string | undefined {
  try {
    return server.env.vault.keySealer().fingerprint();
  } catch {
    return undefined; // the vault is locked here: no move in or out (sealed rows could not be read)
  }
}

function held(server: ServerDeps, name: string): UserRecord {
  const u = server.env.users.get(name);
  if (!u) throw new BrowserdError('not_found', `no user ${name} on this host`, { next: 'List users with GET /v1/admin/users.' });
  if (!u.moving) throw new BrowserdError('refused', `user ${name} is not held for a move`, { next: `Hold them first: POST /v1/admin/users/${name}/hold.` });
  return u;
}

/** The request body to a file, as it arrives (an archive can be gigabytes: never in memory). */
function bodyToFile(r: Req, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file, { mode: 0o600 });
    out.on('error', reject);
    r.res.onData((ab, isLast) => {
      out.write(Buffer.from(ab.slice(0)));
      if (isLast) out.end(() => resolve());
    });
    r.signal.addEventListener('abort', () => {
      out.destroy();
      reject(new BrowserdError('validation_error', 'the archive upload was cut off', { next: 'Send the whole archive again.' }));
    });
  });
}

/** What this process keeps in memory of a user whose rows and files a move just wrote or removed. */
async function forgetUser(server: ServerDeps, name: string): Promise<void> {
  const { env } = server;
  env.vault.forget(name);
  env.agentStorage.forget(name);
  env.files.forget(name);
  await env.users.noteUsersChanged();
}

export function fleetHostHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  return {
    'GET /v1/admin/fleet/host': async (r) => {
      sendJson(r, 200, { ok: true, vaultKey: vaultFingerprint(server) ?? null, users: env.users.list().length, maxBrowsers: env.browserSettings.current().max_browsers });
    },
    'POST /v1/admin/users/{name}/hold': async (r, _u, _raw, { params, query }) => {
      const name = params.name!;
      const u = env.users.get(name);
      if (!u) throw new BrowserdError('not_found', `no user ${name} on this host`, { next: 'List users with GET /v1/admin/users.' });
      const to = (query as { to?: string }).to ?? 'another host';
      if (!u.moving) await env.users.update(name, { moving: to });
      // Everything of theirs ends now; browsers close gracefully, so cookies and storage reach the profile on disk.
      await server.stopAccount(name);
      sendJson(r, 200, { ok: true, user: name, held: true });
    },
    'POST /v1/admin/users/{name}/release': async (r, _u, _raw, { params }) => {
      const name = params.name!;
      held(server, name);
      await env.users.update(name, { moving: undefined });
      sendJson(r, 200, { ok: true, user: name, held: false });
    },
    'GET /v1/admin/users/{name}/archive': async (r, _u, _raw, { params }) => {
      const name = params.name!;
      const u = held(server, name);
      // Still held: whatever started between the hold and now (nothing should) stops before the files are read.
      await server.stopAccount(name);
      await sendStream(r, 200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' }, exportUser(env.db, env.cfg.dataDir, name, u.key));
    },
    'POST /v1/admin/users/import': async (r, _u, _raw, { query }) => {
      const work = mkdtempSync(join(env.cfg.dataDir, '.import-'));
      try {
        const file = join(work, 'archive');
        await bodyToFile(r, file);
        let archive: ReturnType<typeof readArchive>;
        try {
          archive = readArchive(file, join(work, 'stage'));
        } catch (e) {
          throw new BrowserdError('validation_error', `the archive was refused, and nothing of it taken: ${(e as Error).message}`, { next: 'Send a whole archive, as GET /v1/admin/users/{name}/archive of another host of the fleet gives it.' });
        }
        if (env.users.get(archive.user)) throw new BrowserdError('refused', `user ${archive.user} is already on this host`, { next: 'Remove it here first if it is a leftover of an earlier move, or move another user.' });
        const clash = clashingRow(env.db, archive.rows, archive.user);
        if (clash) throw new BrowserdError('validation_error', `the archive was refused, and nothing of it taken: a row of ${clash.table} is another user's here`, { next: 'Send the archive GET /v1/admin/users/{name}/archive of another host of the fleet gives.' });
        // Two users of one host with one routing key: the fleet's map could send only one of them home.
        const key = archive.key;
        if (key && env.users.list().some((u) => u.key === key)) throw new BrowserdError('validation_error', `the archive was refused, and nothing of it taken: its routing key is another user's here`, { next: 'Send the archive GET /v1/admin/users/{name}/archive of another host of the fleet gives.' });
        const mine = vaultFingerprint(server);
        if (!mine) throw new BrowserdError('not_configured', "this host's vault is locked, so sealed rows could not be read here", { next: 'Give this host the fleet\'s vault key (BROWSERD_VAULT_KEY) and restart it.' });
        const from = (query as { vaultKey?: string }).vaultKey;
        if (from && from !== mine) throw new BrowserdError('refused', 'the two hosts have different vault keys: the user\'s saved logins would not open here', { next: 'Give every host of the fleet the same BROWSERD_VAULT_KEY (docs/fleet.md), then move the user.' });
        placeFiles(join(work, 'stage'), env.cfg.dataDir, archive.user);
        const rows = await putUserRows(env.db, archive.rows);
        await forgetUser(server, archive.user);
        // Held on the old host when copied: served here from now on.
        await env.users.update(archive.user, { moving: undefined });
        // Their crawls, tasks, monitors and webhook deliveries go on from here.
        server.userMoved.arrived(archive.user);
        sendJson(r, 200, { ok: true, user: archive.user, rows, files: archive.files, bytes: archive.bytes });
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    'DELETE /v1/admin/users/{name}': async (r, _u, _raw, { params }) => {
      const name = params.name!;
      held(server, name);
      await server.stopAccount(name);
      await server.userMoved.leaving(name);
      const rows = await removeUserRows(env.db, name);
      removeUserDirs(env.cfg.dataDir, name);
      await forgetUser(server, name);
      sendJson(r, 200, { ok: true, user: name, removed: true, rows });
    },
  };
}
