/**
 * A fleet: several browserd hosts behind one HAProxy, each user at home on one host. Its state is a directory
 * the operator keeps (docs/fleet.md): fleet.json (the hosts, with their admin keys: private), users.map (routing
 * key -> host's backend, the router's only state), the generated haproxy.cfg, the 503 answer for a host that is
 * down, and HAProxy's runtime socket. The commands here speak to each host through its admin API and to HAProxy
 * through its runtime API; no host knows it is in a fleet.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir } from '../../storage/private-fs.js';
import { ROUTING_KEY_SHAPE } from '../../storage/routing-key.js';
import { backendOf, haproxyConfig, hostDownResponse, HOST_NAME_SHAPE, type HaproxyFiles } from './haproxy-config.js';
import { setMapEntry } from './runtime-api.js';

export interface FleetHostEntry {
  name: string;
  /** The daemon's base URL as the fleet's commands and HAProxy reach it (http://host:port). */
  url: string;
  adminKey: string;
}

interface FleetFile {
  listen: string;
  /** The sign-up desk's address (desk.ts). */
  desk?: string;
  hosts: FleetHostEntry[];
  /** Hosts being emptied: no new user is placed there. */
  drained?: string[];
}

export interface Moved {
  user: string;
  from: string;
  to: string;
  rows: number;
  files: number;
  bytes: number;
  /** From the hold to the router's switch: how long the user's calls were told to retry. */
  ms: number;
}

export interface Placement {
  host: string;
  users: number;
  maxBrowsers: number;
}

/** Writes a whole file or nothing (a crash mid-write leaves the old one). */
function writeWhole(path: string, text: string, mode = 0o600) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

export class Fleet {
  constructor(readonly dir: string) {}

  /** Where the fleet's files are (fixed by the directory: nothing is read to say so). */
  get files(): Omit<HaproxyFiles, 'listen' | 'desk'> & { config: string; state: string } {
    return {
      mapFile: join(this.dir, 'users.map'),
      errorFile: join(this.dir, '503.http'),
      socket: join(this.dir, 'haproxy.sock'),
      config: join(this.dir, 'haproxy.cfg'),
      state: join(this.dir, 'fleet.json'),
    };
  }

  read(): FleetFile {
    if (!existsSync(this.files.state)) throw new Error(`${this.dir} is not a fleet directory: make one with 'browserd fleet init --dir ${this.dir} --listen HOST:PORT'`);
    return JSON.parse(readFileSync(this.files.state, 'utf8')) as FleetFile;
  }

  private save(state: FleetFile): void {
    writeWhole(this.files.state, `${JSON.stringify(state, null, 2)}\n`);
  }

  /** Makes the fleet directory: no hosts yet, an empty map, the router's configuration. */
  init(listen: string, desk = `127.0.0.1:${Number(listen.split(':').at(-1)) + 1}`): void {
    if (existsSync(this.files.state)) throw new Error(`${this.dir} already holds a fleet (fleet.json)`);
    for (const [flag, v] of [['--listen', listen], ['--desk', desk]]) {
      if (!/^[^:\s]+:\d{1,5}$/.test(v!)) throw new Error(`${flag} ${JSON.stringify(v)}: give HOST:PORT, e.g. 0.0.0.0:8787`);
    }
    privateDir(this.dir);
    this.save({ listen, desk, hosts: [] });
    writeWhole(this.files.mapFile, '');
    this.writeConfig();
  }

  /** haproxy.cfg and the 503 answer, from fleet.json; HAProxy reads them at its next start or reload. */
  writeConfig(): string {
    const state = this.read();
    const f = { ...this.files, listen: state.listen, desk: state.desk };
    writeWhole(f.errorFile, hostDownResponse(), 0o644);
    writeWhole(f.config, haproxyConfig(state.hosts.map((h) => ({ name: h.name, addr: new URL(h.url).host })), f), 0o644);
    return f.config;
  }

  private async admin(host: FleetHostEntry, method: string, path: string, body?: unknown): Promise<any> {
    let res: Response;
    try {
      res = await fetch(`${host.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${host.adminKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new Error(`host ${host.name} (${host.url}) did not answer ${method} ${path}: ${(e as Error).message}`);
    }
    const json = (await res.json().catch(() => undefined)) as any;
    if (!res.ok) throw new Error(`host ${host.name} answered ${method} ${path} with ${res.status}: ${json?.error?.message ?? 'no JSON'}${json?.error?.next ? ` (${json.error.next})` : ''}`);
    return json;
  }

  /** Adds a host after checking its admin key; HAProxy needs a reload to route to it (nobody moves). */
  async addHost(name: string, url: string, adminKey: string): Promise<void> {
    if (!HOST_NAME_SHAPE.test(name)) throw new Error(`host name ${JSON.stringify(name)}: use lowercase letters, digits and '-'`);
    const state = this.read();
    if (state.hosts.some((h) => h.name === name)) throw new Error(`the fleet already has a host named ${name}`);
    const base = url.replace(/\/+$/, '');
    const entry = { name, url: base, adminKey };
    const theirs = ((await this.admin(entry, 'GET', '/v1/admin/users')).users as { name: string }[]).map((u) => u.name);
    // Names are the fleet's: a user on two hosts could be neither moved nor found by name.
    const ours = new Set((await this.users()).map((u) => u.user));
    const both = theirs.filter((n) => ours.has(n));
    if (both.length) throw new Error(`host ${name} has users whose names another host of the fleet has too (${both.join(', ')}): give each host's first user its own name (BROWSERD_FIRST_USER) before its first start, or add a host without them`);
    state.hosts.push(entry);
    this.save(state);
    this.writeConfig();
  }

  /** Users each host holds against its browser maximum, roomiest first. */
  async placements(): Promise<Placement[]> {
    const state = this.read();
    const rows = await Promise.all(
      state.hosts.map(async (h) => {
        const status = await this.admin(h, 'GET', '/v1/admin/fleet/host');
        return { host: h.name, users: status.users as number, maxBrowsers: status.maxBrowsers as number };
      }),
    );
    const drained = new Set(state.drained ?? []);
    return rows.filter((r) => !drained.has(r.host)).sort((a, b) => b.maxBrowsers - b.users - (a.maxBrowsers - a.users) || a.users - b.users);
  }

  /** key -> host, from the map file. */
  routes(): Map<string, string> {
    const out = new Map<string, string>();
    const text = existsSync(this.files.mapFile) ? readFileSync(this.files.mapFile, 'utf8') : '';
    for (const line of text.split('\n')) {
      const [key, backend] = line.trim().split(/\s+/);
      if (key && backend?.startsWith('host_')) out.set(key, backend.slice('host_'.length));
    }
    return out;
  }

  /** Points `key` at `host`: in the file, then in the running HAProxy (if it runs), so it routes at once. */
  async route(key: string, host: string): Promise<void> {
    if (!ROUTING_KEY_SHAPE.test(key)) throw new Error(`not a routing key: ${JSON.stringify(key)}`);
    const routes = this.routes();
    routes.set(key, host);
    writeWhole(this.files.mapFile, [...routes].map(([k, h]) => `${k} ${backendOf(h)}\n`).join(''), 0o644);
    if (existsSync(this.files.socket)) await setMapEntry(this.files.socket, this.files.mapFile, key, backendOf(host));
  }

  /** Creates a user on the host with the most free browser slots and routes their key there. */
  async addUser(name: string): Promise<{ host: string; key: string; token: string }> {
    const state = this.read();
    if (!state.hosts.length) throw new Error("the fleet has no hosts yet: add one with 'browserd fleet add-host'");
    // Names are the fleet's, not one host's: a user moved later must not meet a namesake.
    const taken = (await this.users()).find((u) => u.user === name);
    if (taken) throw new Error(`user ${name} already lives on host ${taken.host}`);
    const [best] = await this.placements();
    if (!best) throw new Error('every host of the fleet is being drained: add a host first');
    const host = state.hosts.find((h) => h.name === best.host)!;
    const made = await this.admin(host, 'POST', '/v1/admin/users', { name });
    const key = made.user.key as string;
    await this.route(key, host.name);
    return { host: host.name, key, token: made.token };
  }

  private host(name: string): FleetHostEntry {
    const h = this.read().hosts.find((x) => x.name === name);
    if (!h) throw new Error(`the fleet has no host named ${name}`);
    return h;
  }

  /**
   * Moves a user to another host: held on theirs (everything stops; their calls are told to retry), copied whole
   * (rows, profiles, files), taken in by the new host, routed there, then removed from the old one. Run again
   * after a failure, it picks up where it stopped; a copy the new host refused releases the user where they were.
   */
  async move(user: string, to: string): Promise<Moved> {
    const target = this.host(to);
    const where = (await this.users()).filter((u) => u.user === user);
    const source = where.find((u) => u.host !== to) ?? where[0];
    if (!source) throw new Error(`no host of the fleet has a user named ${user}`);
    if (source.host === to && where.length === 1) {
      if (source.key) await this.route(source.key, to);
      throw new Error(`user ${user} already lives on host ${to}`);
    }
    const from = this.host(source.host);
    const [a, b] = await Promise.all([this.admin(from, 'GET', '/v1/admin/fleet/host'), this.admin(target, 'GET', '/v1/admin/fleet/host')]);
    if (!a.vaultKey || a.vaultKey !== b.vaultKey) {
      throw new Error(`hosts ${from.name} and ${to} do not share one vault key (${a.vaultKey ?? 'locked'} / ${b.vaultKey ?? 'locked'}): give every host the fleet's BROWSERD_VAULT_KEY first (docs/fleet.md)`);
    }
    const t0 = Date.now();
    const name = encodeURIComponent(user);
    await this.admin(from, 'POST', `/v1/admin/users/${name}/hold?to=${encodeURIComponent(to)}`);
    let taken: { rows: number; files: number; bytes: number };
    if (where.some((u) => u.host === to)) {
      taken = { rows: 0, files: 0, bytes: 0 }; // an earlier run got this far: the new host has them already
    } else {
      try {
        const archive = await fetch(`${from.url}/v1/admin/users/${name}/archive`, { headers: { Authorization: `Bearer ${from.adminKey}` } });
        if (!archive.ok || !archive.body) throw new Error(`host ${from.name} gave no archive (${archive.status}): ${await archive.text()}`);
        const res = await fetch(`${target.url}/v1/admin/users/import?vaultKey=${a.vaultKey}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${target.adminKey}`, 'Content-Type': 'application/octet-stream' },
          body: archive.body,
          duplex: 'half',
        } as RequestInit);
        const json = (await res.json().catch(() => undefined)) as any;
        if (!res.ok) throw new Error(`host ${to} refused the user (${res.status}): ${json?.error?.message ?? ''} ${json?.error?.next ?? ''}`);
        taken = json;
      } catch (e) {
        await this.admin(from, 'POST', `/v1/admin/users/${name}/release`).catch(() => undefined);
        throw e;
      }
    }
    if (source.key) await this.route(source.key, to);
    const ms = Date.now() - t0;
    await this.admin(from, 'DELETE', `/v1/admin/users/${name}`);
    return { user, from: from.name, to, rows: taken.rows, files: taken.files, bytes: taken.bytes, ms };
  }

  /** Empties a host: no new user goes there, and each of its users moves to the host with the most room. */
  async drain(name: string): Promise<Moved[]> {
    this.host(name);
    const state = this.read();
    state.drained = [...new Set([...(state.drained ?? []), name])];
    this.save(state);
    const moved: Moved[] = [];
    for (const u of (await this.users()).filter((x) => x.host === name)) {
      const [best] = await this.placements();
      if (!best) throw new Error('no host left to move users to: add one first');
      moved.push(await this.move(u.user, best.host));
    }
    return moved;
  }

  /** Every user of every host, with where the router sends them. */
  async users(): Promise<{ user: string; host: string; key?: string; routed: boolean }[]> {
    const state = this.read();
    const routes = this.routes();
    const lists = await Promise.all(state.hosts.map(async (h) => ({ h, users: (await this.admin(h, 'GET', '/v1/admin/users')).users as { name: string; key?: string }[] })));
    return lists.flatMap(({ h, users }) => users.map((u) => ({ user: u.name, host: h.name, key: u.key, routed: !!u.key && routes.get(u.key) === h.name })));
  }
}
