/**
 * The server half of a SOCKS5 handshake (RFC 1928), as much of it as the egress proxy needs: no authentication
 * and the CONNECT command, to a name, an IPv4 or an IPv6 address. Chromium sends a name as it is, so the proxy
 * resolves and vets it itself, as it does for an HTTP CONNECT.
 */
import type net from 'node:net';

export const SOCKS_VERSION = 5;

/** Reply codes (RFC 1928 section 6) the proxy uses. */
export const SocksReply = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

/** A reply with an all-zero bound address: Chromium reads the address but does nothing with it. */
export function socksReply(code: number): Buffer {
  return Buffer.from([SOCKS_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

export interface SocksConnect {
  host: string;
  port: number;
  /** Bytes the client sent after its request, before our reply (none, from Chromium): they belong upstream. */
  rest: Buffer;
}

/** A handshake that cannot go on: answer with `reply` (undefined: the greeting itself was bad, just close). */
export class SocksHandshakeError extends Error {
  constructor(
    readonly reply: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

const NO_AUTHENTICATION = 0;
const NO_ACCEPTABLE_METHOD = 0xff;
const CONNECT = 1;
const ATYP_IPV4 = 1;
const ATYP_NAME = 3;
const ATYP_IPV6 = 4;

/** Whole bytes of the greeting, else undefined while more are needed. */
function greetingLength(b: Buffer): number | undefined {
  return b.length >= 2 && b.length >= 2 + b[1]! ? 2 + b[1]! : undefined;
}

/** The CONNECT request parsed, or undefined while more bytes are needed. Throws on a request we do not serve. */
function parseRequest(b: Buffer): { host: string; port: number; length: number } | undefined {
  if (b.length < 5) return undefined;
  if (b[0] !== SOCKS_VERSION) throw new SocksHandshakeError(SocksReply.generalFailure, 'not a SOCKS5 request');
  if (b[1] !== CONNECT) throw new SocksHandshakeError(SocksReply.commandNotSupported, `command ${b[1]} is not served: CONNECT only`);
  const atyp = b[3];
  let host: string;
  let end: number;
  if (atyp === ATYP_IPV4) {
    end = 8;
    if (b.length < end + 2) return undefined;
    host = [...b.subarray(4, 8)].join('.');
  } else if (atyp === ATYP_NAME) {
    end = 5 + b[4]!;
    if (b.length < end + 2) return undefined;
    host = b.subarray(5, end).toString('latin1');
  } else if (atyp === ATYP_IPV6) {
    end = 20;
    if (b.length < end + 2) return undefined;
    const groups: string[] = [];
    for (let i = 4; i < 20; i += 2) groups.push(b.readUInt16BE(i).toString(16));
    host = groups.join(':');
  } else {
    throw new SocksHandshakeError(SocksReply.addressTypeNotSupported, `address type ${atyp} is not served`);
  }
  return { host: host.replace(/^\[|\]$/g, ''), port: b.readUInt16BE(end), length: end + 2 };
}

/**
 * Reads a client's greeting (starting with `first`, already read) and its CONNECT request, answering the
 * greeting with "no authentication". The caller sends the reply to the request. The socket is left paused.
 */
export function readSocksConnect(socket: net.Socket, first: Buffer): Promise<SocksConnect> {
  return new Promise((resolve, reject) => {
    let buffered = first;
    let greeted = false;
    let settled = false;
    const stop = (err?: Error) => {
      settled = true;
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (err) reject(err);
    };
    const onClose = () => stop(new SocksHandshakeError(undefined, 'closed during the handshake'));
    const onData = (chunk?: Buffer) => {
      if (chunk) buffered = Buffer.concat([buffered, chunk]);
      try {
        if (!greeted) {
          // A greeting (at most 257 bytes) and a request sent right behind it (at most 262) bound what we buffer.
          if (buffered[0] !== SOCKS_VERSION || buffered.length > 257 + 262) throw new SocksHandshakeError(undefined, 'not a SOCKS5 greeting');
          const length = greetingLength(buffered);
          if (length === undefined) return;
          if (!buffered.subarray(2, length).includes(NO_AUTHENTICATION)) {
            socket.write(Buffer.from([SOCKS_VERSION, NO_ACCEPTABLE_METHOD]));
            throw new SocksHandshakeError(undefined, 'the client offers no method without authentication');
          }
          socket.write(Buffer.from([SOCKS_VERSION, NO_AUTHENTICATION]));
          greeted = true;
          buffered = buffered.subarray(length);
        }
        const request = parseRequest(buffered);
        if (!request) {
          if (buffered.length > 262) throw new SocksHandshakeError(SocksReply.generalFailure, 'request too long');
          return;
        }
        stop();
        resolve({ host: request.host, port: request.port, rest: buffered.subarray(request.length) });
      } catch (e) {
        stop(e as Error);
      }
    };
    socket.on('data', onData);
    socket.on('close', onClose);
    onData();
    if (!settled) socket.resume();
  });
}
