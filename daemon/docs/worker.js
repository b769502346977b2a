// Entry of a converter thread (piscina). Plain JavaScript so it loads without a TypeScript loader; it registers
// tsx itself (as bin/browserd.js does) and hands piscina the typed worker body.
import { register } from 'tsx/esm/api';
register();
const body = await import('./worker-body.ts');
export default body.default;
