/**
 * A recording's video: the recorded tab's screencast frames (JPEG, from the same shared screencast a live
 * viewer uses) kept while it records; at stop they are encoded to VP8 by Chromium's own WebCodecs VideoEncoder
 * in a page the daemon owns (a scratch tab whose every request is answered or failed by the daemon, so it has no
 * network), and
 * the encoded chunks are muxed into WebM by mediabunny here, with no ffmpeg. The file goes to the user's files.
 * Chromium sends a frame only when the picture changes, so each frame lasts until the next one.
 *
 * A busy page (an animation, a video) changes its picture 60 times a second; kept whole, its frames would fill
 * the byte cap in seconds and leave the rest of a long recording without video. So at most MAX_FPS frames a
 * second are kept: a frame that comes sooner than 1/MAX_FPS s after the last kept one is held aside as the
 * newest picture, replaced by the next early one, and kept at stop if nothing came after it, so the video
 * still ends on what the tab showed last.
 */
import type { BufferTarget } from 'mediabunny';
import type { Platform } from '../platform.js';
import type { Tab } from '../browser/tab.js';
import type { FrameSink } from '../live/screencast.js';

/** Frames kept for one video; past it later frames are dropped (the video says so). */
const MAX_FRAME_BYTES = 200 * 1024 * 1024;
/** The most frames a second a video keeps (what the encoder is told to expect, too). */
export const MAX_FPS = 15;
const MIN_FRAME_GAP_MS = 1000 / MAX_FPS;
/** Frames per call into the encoder page: each call carries them as base64 over CDP. */
const BATCH = 25;
const KEYFRAME_EVERY = 60;
/** The longest a frame is shown: a still page still moves on in the video's clock. */
const MAX_FRAME_S = 2;
/**
 * The shortest the last picture is shown. A player running late skips frames to catch up, and a final frame of a
 * fifteenth of a second is one it may skip; the viewer would then be left on the picture before it.
 */
const LAST_FRAME_MIN_MS = 500;

export interface VideoCapture {
  /** Stops capturing, encodes and stores the video; answers the file's name in the user's files. */
  finish(name: string): Promise<string>;
  cancel(): Promise<void>;
}

interface Kept { jpeg: string; at: number }
interface Chunk { type: 'key' | 'delta'; ts: number; dur: number; data: string }

export async function startVideo(env: Platform, user: string, tab: Tab): Promise<VideoCapture> {
  const inst = await env.pool.get(user, tab.record.profile);
  const cast = env.live.casts.for(inst.conn!, tab);
  const frames: Kept[] = [];
  let bytes = 0;
  /** The newest frame that came too soon after the last kept one: kept at stop unless a later one was. */
  let held: Kept | undefined;
  const keep = (k: Kept) => {
    if (bytes + k.jpeg.length > MAX_FRAME_BYTES) return;
    bytes += k.jpeg.length;
    frames.push(k);
  };
  const sink: FrameSink = {
    frame(f) {
      const now = { jpeg: f.data, at: Date.now() };
      const last = frames.at(-1);
      if (last && now.at - last.at < MIN_FRAME_GAP_MS) {
        held = now;
        return;
      }
      held = undefined;
      keep(now);
    },
    gone() {},
  };
  await cast.add(sink);
  return {
    async cancel() {
      cast.remove(sink);
    },
    async finish(name) {
      cast.remove(sink);
      // The held picture came sooner than a frame's gap after the last kept one. Kept at its arrival time, the
      // encoder's rate control sees a frame a few milliseconds after the last and may drop it, so the video
      // would end on the picture before; a frame's gap later it is an ordinary frame.
      if (held) keep({ jpeg: held.jpeg, at: Math.max(held.at, frames.at(-1)!.at + MIN_FRAME_GAP_MS) });
      held = undefined;
      const end = Math.max(Date.now(), frames.at(-1)?.at ?? 0);
      if (!frames.length) throw new Error('the tab drew no frame while it was recorded');
      const encoder = await inst.scratchTab();
      try {
        await openEncoderPage(encoder);
        const webm = await encode(encoder, frames, end);
        return (await env.files.addBytes(user, name, webm)).name;
      } finally {
        await encoder.close().catch(() => undefined);
      }
    },
  };
}

/**
 * WebCodecs exists only in secure contexts, which about:blank and data: pages are not; http://localhost is. The
 * page is answered by the tab's responder itself and every other request fails, so nothing reaches a network.
 */
const ENCODER_URL = 'http://localhost/browserd-video-encoder';

async function openEncoderPage(tab: Tab) {
  await tab.setResponder(async (req) => (req.url === ENCODER_URL ? { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from('<!doctype html><title>encoder</title>') } : 'fail'));
  const loaded = tab.waitForLoad(10_000);
  await tab.send('Page.navigate', { url: ENCODER_URL });
  await loaded;
}

/** Runs in the encoder page: a VP8 VideoEncoder drawing each JPEG onto a canvas of the first frame's size. */
const ENCODER_PAGE = `globalThis.__video = {
  out: [], error: null, n: 0,
  async init(w, h) {
    this.w = w; this.h = h;
    this.canvas = new OffscreenCanvas(w, h);
    this.g = this.canvas.getContext('2d');
    const config = { codec: 'vp8', width: w, height: h, bitrate: 2000000, framerate: ${MAX_FPS} };
    const support = await VideoEncoder.isConfigSupported(config);
    if (!support.supported) throw new Error('this Chromium cannot encode VP8');
    this.enc = new VideoEncoder({
      output: (chunk) => {
        const b = new Uint8Array(chunk.byteLength);
        chunk.copyTo(b);
        let s = '';
        for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
        this.out.push({ type: chunk.type, ts: chunk.timestamp, dur: chunk.duration ?? 0, data: btoa(s) });
      },
      error: (e) => { this.error = String(e); },
    });
    this.enc.configure(config);
  },
  async add(batch) {
    for (const [jpeg, ts, dur] of batch) {
      const bin = atob(jpeg);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const bmp = await createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }));
      this.g.fillStyle = '#fff';
      this.g.fillRect(0, 0, this.w, this.h);
      this.g.drawImage(bmp, 0, 0, Math.min(bmp.width, this.w), Math.min(bmp.height, this.h), 0, 0, Math.min(bmp.width, this.w), Math.min(bmp.height, this.h));
      bmp.close();
      const frame = new VideoFrame(this.canvas, { timestamp: ts, duration: dur });
      this.enc.encode(frame, { keyFrame: this.n++ % ${KEYFRAME_EVERY} === 0 });
      frame.close();
    }
    await this.enc.flush();
    if (this.error) throw new Error(this.error);
    return this.out.splice(0);
  },
}; true`;

async function inPage<T>(tab: Tab, expression: string): Promise<T> {
  const r = await tab.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text);
  return r.result.value as T;
}

async function encode(page: Tab, frames: Kept[], end: number): Promise<Buffer> {
  const size = await firstFrameSize(frames[0]!.jpeg);
  await inPage(page, ENCODER_PAGE);
  await inPage(page, `__video.init(${size.width}, ${size.height})`);
  // The muxer loads with the first video made, not with the daemon.
  const { BufferTarget, EncodedPacket, EncodedVideoPacketSource, Output, WebMOutputFormat } = await import('mediabunny');
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  const source = new EncodedVideoPacketSource('vp8');
  output.addVideoTrack(source);
  await output.start();
  const t0 = frames[0]!.at;
  let first = true;
  for (let i = 0; i < frames.length; i += BATCH) {
    const batch = frames.slice(i, i + BATCH).map((f, j) => {
      const next = frames[i + j + 1]?.at;
      // The last picture may have come just before stop: it still gets half a second, or a player may skip it.
      const dur = next === undefined ? Math.max(LAST_FRAME_MIN_MS, Math.min(end - f.at, MAX_FRAME_S * 1000)) : Math.max(1, Math.min(next - f.at, MAX_FRAME_S * 1000));
      return [f.jpeg, (f.at - t0) * 1000, dur * 1000];
    });
    const chunks = await inPage<Chunk[]>(page, `__video.add(${JSON.stringify(batch)})`);
    for (const c of chunks) {
      const packet = new EncodedPacket(Buffer.from(c.data, 'base64'), c.type, c.ts / 1e6, c.dur / 1e6);
      await source.add(packet, first ? { decoderConfig: { codec: 'vp8', codedWidth: size.width, codedHeight: size.height } } : undefined);
      first = false;
    }
  }
  await output.finalize();
  return Buffer.from((output.target as BufferTarget).buffer!);
}

/** A JPEG's width and height (from its SOF marker), rounded down to even as VP8 wants. */
async function firstFrameSize(b64: string): Promise<{ width: number; height: number }> {
  const b = Buffer.from(b64, 'base64');
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) break;
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = b.readUInt16BE(i + 5);
      const width = b.readUInt16BE(i + 7);
      return { width: Math.max(2, width & ~1), height: Math.max(2, height & ~1) };
    }
    i += 2 + len;
  }
  throw new Error('a screencast frame was not a JPEG it could read');
}
