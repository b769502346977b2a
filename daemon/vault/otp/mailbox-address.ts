/**
 * The address the daemon may connect to for a mailbox. The daemon itself talks IMAP (Chromium is not in
 * the path), so the private-network guard the egress proxy applies to pages is applied here too, the same
 * way: resolve the name once, check every address it has, and connect to a checked address (never to the
 * name, which a second lookup could answer differently). Otherwise a vault entry would be a way to make the
 * daemon probe the host's own network, or its own loopback services.
 */
import { vetTarget, VetRefusal } from '../../net/vet.js';
import { BrowserdError } from '../../../protocol/errors.js';

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

const NEXT_ALLOW = 'Use a mailbox on a public address; an admin can allow private networks (BROWSERD_ALLOW_PRIVATE_NETWORK=1) or this one address (BROWSERD_ALLOW_TARGETS=address:port).';

/** Resolves `host` and returns the checked address to connect to; throws blocked or action_failed. */
export async function mailboxAddress(inbox: string, host: string, port: number, guard: MailboxGuard): Promise<string> {
  try {
    const deniedPorts = guard.deniedPorts;
    const addresses = await vetTarget(host, port, { ...guard, deniedPorts: deniedPorts ? () => deniedPorts : undefined });
    return addresses[0]!;
  } catch (e) {
    if (!(e instanceof VetRefusal)) throw e;
    if (e.kind === 'unresolved' || e.kind === 'malformed') throw new BrowserdError('action_failed', `could not read inbox ${inbox}: the mailbox host ${host} did not resolve`, { next: 'Check the inbox host name in the vault (PUT /v1/vault/NAME), or ask a person for the code.' });
    if (e.kind === 'reserved_port') throw new BrowserdError('blocked', `inbox ${inbox}: port ${port} on this machine is the daemon's own`, { next: "Give the mailbox server's own address and port." });
    throw new BrowserdError('blocked', `inbox ${inbox}: the mailbox host ${host} is a ${(e.addressClass ?? 'private').replace('_', '-')} address, which the daemon may not reach`, { next: NEXT_ALLOW });
  }
}
