// Entry of a Markdown worker thread. Plain JavaScript so it loads without a TypeScript loader; it registers
// tsx itself (as bin/browserd.js does) and then runs the typed worker body.
import { register } from 'tsx/esm/api';
register();
await import('./markdown-thread-body.ts');
