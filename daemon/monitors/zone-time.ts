/** A moment shown in a zone as ISO 8601 with that zone's offset (2026-03-30T09:00:00-04:00), as users read it. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(timezone, f);
  }
  return f;
}

export function isoInZone(at: Date, timezone: string): string {
  const parts: Record<string, string> = {};
  for (const p of formatter(timezone).formatToParts(at)) parts[p.type] = p.value;
  // longOffset is "GMT+05:30", "GMT-04:00", or plain "GMT" at offset zero.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
