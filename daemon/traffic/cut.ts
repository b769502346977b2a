/** Text cut to at most `max` UTF-8 bytes, never inside a character: what capture and HAR keep of a long body. */
export function cutUtf8(text: string, max: number): { text: string; cut: boolean; bytes: number } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return { text, cut: false, bytes: buf.length };
  let end = max;
  // Back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: buf.subarray(0, end).toString('utf8'), cut: true, bytes: buf.length };
}
