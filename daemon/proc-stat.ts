/**
 * /proc/<pid>/stat, split into its fields. The command name (field 2) may hold spaces and parentheses, so the
 * fields are read from after its last ')': index 0 here is the state (field 3), 1 the parent pid (field 4),
 * 19 the start time in clock ticks since boot (field 22).
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
