/**
 * The address the daemon may connect to for a mailbox. The daemon itself talks IMAP (Chromium is not in
 * the path), so the private-network guard the egress proxy applies to pages is applied here too, the same
 * way: resolve the name once, check every address it has, and connect to a checked address (never to the
 * name, which a second lookup could answer differently). Otherwise a vault entry would be a way to make the
 * daemon probe the host's own network, or its own loopback services.
 */
import { vetOrRefuse } from '../../net/refusal-error.js';

export interface MailboxGuard {
  /** BROWSERD_ALLOW_PRIVATE_NETWORK: loopback, private and link-local mailboxes become reachable. */
  allowPrivateNetwork: boolean;
  /** Exact "address:port" pairs allowed although private (BROWSERD_ALLOW_TARGETS). */
  allowTargets?: Iterable<string>;
  /** The daemon's own ports: never a mailbox on this machine, even when private networks are allowed. */
  deniedPorts?: Set<number>;
  /** Name resolution; tests map names without DNS. Default: every address dns.lookup gives. */
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

/** Resolves `host` and returns the checked address to connect to; throws blocked or action_failed. */
export async function mailboxAddress(inbox: string, host: string, port: number, guard: MailboxGuard): Promise<string> {
  const deniedPorts = guard.deniedPorts;
  const addresses = await vetOrRefuse(host, port, { ...guard, deniedPorts: deniedPorts ? () => deniedPorts : undefined }, {
    prefix: `inbox ${inbox}: `,
    failedPrefix: `could not read inbox ${inbox}: `,
    hostNoun: 'the mailbox host ',
    unresolvedCode: 'action_failed',
    checkNext: 'Check the inbox host name in the vault (PUT /v1/vault/NAME), or ask a person for the code.',
    ownPortNext: "Give the mailbox server's own address and port.",
    useInstead: 'a mailbox on a public address',
  });
  return addresses[0]!;
}
