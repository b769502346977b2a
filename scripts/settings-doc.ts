/**
 * The settings table, from daemon/settings.ts: every flag and environment variable of the daemon, grouped, with
 * its default. `npm run gen` writes it between the settings markers of docs/operations.md (gen-docs.ts);
 * test/contract/generated.test.ts fails when it is stale.
 */
import { SETTING_GROUPS, SETTINGS, type SettingGroup } from '../daemon/settings.js';
import { tableCell as cell } from './markdown.js';

/** The paragraph and the tables, one per group (### headings: they sit under the file's own heading for settings). */
export function settingsTable(): string {
  const parts = [
    'Everything `browserd serve` can be told, as a flag or an environment variable (a flag wins over its',
    'variable). `browserd serve --help` lists the same flags, and the daemon refuses one it does not know. Numbers',
    'must be whole; a value the daemon cannot take stops the start with a message that names the setting.',
  ];
  for (const [group, title] of Object.entries(SETTING_GROUPS) as [SettingGroup, string][]) {
    const rows = SETTINGS.filter((s) => s.group === group);
    if (!rows.length) continue;
    parts.push('', `### ${title}`, '', '| flag | environment | default | what it does |', '|---|---|---|---|');
    for (const s of rows) {
      const flag = s.flag ? `\`--${s.flag}${s.arg ? ` ${s.arg}` : ''}\`` : '';
      parts.push(`| ${cell(flag)} | \`${s.env}\` | ${cell(s.default)} | ${cell(s.about)} |`);
    }
  }
  return parts.join('\n');
}
