/** The published version, from package.json: one place, cheap to import (the CLI's --version loads nothing else). */
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
