/** The sendStream checks of send-stream.test.ts, on the node:http server (the one every Node can run). */
process.env.BROWSERD_HTTP = 'node';
await import('./send-stream.test.js');
