// Starts bench/docs-rss-child.ts the way bin/browserd.js starts the daemon: tsx registered in-process, not
// through --import, so converter threads inherit no loader flag, as in production.
import { register } from 'tsx/esm/api';
register();
await import('./docs-rss-child.ts');
