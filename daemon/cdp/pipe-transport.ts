/**
 * CDP over the two file descriptors Chromium opens with --remote-debugging-pipe: it reads commands on fd 3 and
 * writes replies and events on fd 4, each message one JSON text ended by a NUL byte. No TCP port exists, so no
 * other local process can attach to a user's browser; only the daemon, which holds the other ends, can.
 */
import type { Readable, Writable } from 'node:stream';

export interface CdpTransport {
  send(message: string): void;
  /** Set by the connection; called once per message. */
  onMessage?: (message: string) => void;
  /** Set by the connection; called once, when either end goes away. */
  onClose?: (reason: string) => void;
  close(): void;
}

export class PipeTransport implements CdpTransport {
  onMessage?: (message: string) => void;
  onClose?: (reason: string) => void;
  private pending: Buffer[] = [];
  private closed = false;

  constructor(
    private toChromium: Writable,
    private fromChromium: Readable,
  ) {
    fromChromium.on('data', (chunk: Buffer) => this.onData(chunk));
    fromChromium.on('end', () => this.end('the browser closed its end of the CDP pipe'));
    fromChromium.on('close', () => this.end('the browser closed its end of the CDP pipe'));
    fromChromium.on('error', (e) => this.end(`the CDP pipe failed: ${e.message}`));
    // A write to a pipe whose reader died raises EPIPE here; the read side reports the close.
    toChromium.on('error', (e) => this.end(`the CDP pipe failed: ${e.message}`));
  }

  // NUL never occurs inside UTF-8 JSON text, so splitting on the byte is safe before decoding.
  private onData(chunk: Buffer) {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.pending.push(chunk.subarray(start, i));
      const message = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      start = i + 1;
      if (!this.closed) this.onMessage?.(message);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  send(message: string) {
    if (this.closed) return;
    this.toChromium.write(`${message}\0`);
  }

  private end(reason: string) {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.(reason);
  }

  close() {
    this.end('closed by the daemon');
    this.toChromium.destroy();
    this.fromChromium.destroy();
  }
}
