/** A header of an exchange by name, whatever its case (Chromium keeps the case a site or page used). */
export function headerValue(h: Record<string, string>, name: string): string | undefined {
  const n = name.toLowerCase();
  for (const [k, v] of Object.entries(h)) if (k.toLowerCase() === n) return v;
  return undefined;
}
