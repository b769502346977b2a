/** The words every refusal of a private address uses to say how an operator allows one. */

/**
 * How an operator lets the daemon reach private addresses, named the same way in every refusal: the whole
 * range for development, or single address:port targets.
 */
export const ALLOW_PRIVATE_HOW = 'an admin can start the daemon with --allow-private-network (BROWSERD_ALLOW_PRIVATE_NETWORK=1) or allow single targets with BROWSERD_ALLOW_TARGETS=address:port';

/** The next step of a refusal to open a private address in a page. */
export const ALLOW_PRIVATE_NEXT = `Use a public address; ${ALLOW_PRIVATE_HOW}.`;
