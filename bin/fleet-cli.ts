/** `browserd fleet`: the operator's commands for several hosts behind HAProxy (daemon/fleet/, docs/fleet.md). */
import { Fleet } from '../daemon/fleet/fleet.js';
import { startDesk } from '../daemon/fleet/desk.js';

export const FLEET_USAGE = `  browserd fleet init --dir DIR --listen HOST:PORT [--desk HOST:PORT]
                                                      a fleet directory: haproxy.cfg, the routing map; the desk
                                                      (default: the next port on 127.0.0.1) takes sign-ups
  browserd fleet add-host NAME URL --admin-key KEY --dir DIR    a host (its daemon's URL and admin key)
  browserd fleet add-user NAME --dir DIR              create a user on the host with the most room; prints
                                                      the token last
  browserd fleet users --dir DIR                      every user, its host and whether the router sends it there
  browserd fleet move NAME HOST --dir DIR             move a user, whole, to another host (their calls are told
                                                      to retry meanwhile); prints what moved and how long it took
  browserd fleet drain HOST --dir DIR                 place no one new on HOST and move each of its users away
  browserd fleet desk --dir DIR                       run the sign-up desk (HAProxy sends POST /signup to it)
  browserd fleet haproxy --dir DIR                    write haproxy.cfg again and print its path
      Start HAProxy with: haproxy -f DIR/haproxy.cfg (docs/fleet.md)
`;

export async function fleetCommand(args: string[], flags: Record<string, string | boolean>, die: (msg: string) => never): Promise<void> {
  const [sub, ...rest] = args;
  const dir = typeof flags.dir === 'string' ? flags.dir : undefined;
  if (!dir) die('fleet: give the fleet directory with --dir DIR');
  const fleet = new Fleet(dir);
  try {
    switch (sub) {
      case 'init':
        fleet.init(String(flags.listen ?? ''), typeof flags.desk === 'string' ? flags.desk : undefined);
        console.log(`fleet directory ${dir}: start the router with haproxy -f ${fleet.files.config}`);
        return;
      case 'add-host': {
        const [name, url] = rest;
        if (!name || !url || typeof flags['admin-key'] !== 'string') die('fleet add-host NAME URL --admin-key KEY --dir DIR');
        await fleet.addHost(name, url, flags['admin-key']);
        console.log(`host ${name} added; reload HAProxy to route to it (haproxy -f ${fleet.files.config} -sf <its pid>)`);
        return;
      }
      case 'add-user': {
        const [name] = rest;
        if (!name) die('fleet add-user NAME --dir DIR');
        const made = await fleet.addUser(name);
        console.log(`user ${name} lives on host ${made.host} (routing key ${made.key}); the token, shown once:`);
        console.log(made.token);
        return;
      }
      case 'users':
        for (const u of await fleet.users()) console.log(JSON.stringify(u));
        return;
      case 'move': {
        const [name, to] = rest;
        if (!name || !to) die('fleet move NAME HOST --dir DIR');
        console.log(JSON.stringify(await fleet.move(name, to)));
        return;
      }
      case 'drain': {
        const [host] = rest;
        if (!host) die('fleet drain HOST --dir DIR');
        for (const m of await fleet.drain(host)) console.log(JSON.stringify(m));
        return;
      }
      case 'desk': {
        const desk = fleet.read().desk;
        if (!desk) die('fleet desk: this fleet has no desk address (fleet.json "desk")');
        const server = await startDesk(dir, desk);
        console.log(JSON.stringify({ msg: 'fleet desk listening', desk }));
        await new Promise<void>((resolve) => process.once('SIGTERM', () => server.close(() => resolve())));
        return;
      }
      case 'haproxy':
        console.log(fleet.writeConfig());
        return;
      default:
        die(`fleet: unknown subcommand ${JSON.stringify(sub ?? '')}\n${FLEET_USAGE}`);
    }
  } catch (e) {
    die(`fleet ${sub}: ${(e as Error).message}`);
  }
}
