/** auth.test.ts again on the node:http server, the one that serves on Nodes uWebSockets.js has no build for. */
process.env.BROWSERD_HTTP = 'node';
await import('../rest/auth.test.js');
