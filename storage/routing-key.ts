/**
 * A user's routing key: a short random name that every credential and link the user is given starts with, so a
 * router in front of several hosts (HAProxy in docs/fleet.md) can send each request to the user's home host by a
 * map from key to host, with no database of its own. A token reads `bd_<key>.<secret>`, a link's token
 * `<key>.<secret>`; the key is never a secret (the part after the dot is), and it stays with the user when they
 * move to another host, so only the map's line changes.
 *
 * Ten characters of base32 (lower case, 2-7): about 50 bits, so keys drawn on different hosts do not meet; they
 * hold no dot, underscore or slash, which is what lets the router cut them out of a header or a path.
 */
import { randomBytes } from 'node:crypto';

export const ROUTING_KEY_SHAPE = /^[a-z2-7]{10}$/;
/** The regex source of an optional `<key>.` before a token's secret part. */
export const ROUTED = '(?:[a-z2-7]{10}\\.)?';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export function newRoutingKey(): string {
  return [...randomBytes(10)].map((b) => ALPHABET[b & 31]).join('');
}

/** The routing key a user token (`bd_<key>.<secret>`) starts with, if it carries one. */
export function routingKeyOfToken(token: string): string | undefined {
  return /^bd_([a-z2-7]{10})\./.exec(token)?.[1];
}

/** `<key>.<secret>`, or the secret alone for a user who has no key (a store from before keys were drawn). */
export function routed(key: string | undefined, secret: string): string {
  return key ? `${key}.${secret}` : secret;
}
