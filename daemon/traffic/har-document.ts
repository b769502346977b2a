/**
 * A recording as one HAR 1.2 document, produced piece by piece: the envelope (creator, pages), then each entry
 * as it is read from the file, then the closing brackets. Nothing holds the whole document, so a 5,000-entry
 * HAR streams over HTTP or into a file without being built in memory.
 */
import type { HarRecording } from './har-recording.js';
import { VERSION } from '../version.js';

export async function* harDocument(rec: HarRecording): AsyncGenerator<string> {
  const entries = rec.entries();
  // The first entry is read before the envelope is written: reading waits for pending appends, so the pages
  // written next already include a page whose document just ended.
  const first = await entries.next();
  const head = { version: '1.2', creator: { name: 'browserd', version: VERSION }, pages: rec.harPages() };
  yield `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[`;
  if (!first.done) {
    yield first.value;
    for await (const line of entries) yield `,${line}`;
  }
  yield ']}}\n';
}
