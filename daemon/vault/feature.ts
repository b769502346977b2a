/** The vault as a feature: its tools, the /v1/vault routes and the SMS forwarder's inbox route. */
import type { Feature } from '../server/feature.js';
import { vaultTools } from './tools.js';
import { vaultHandlers, VAULT_ROUTES } from './routes.js';
import { inboxHandlers, INBOX_ROUTES } from './sms-inbox-route.js';

export const vaultFeature: Feature = {
  name: 'vault',
  tools: [...vaultTools],
  routes: [...VAULT_ROUTES, ...INBOX_ROUTES],
  handlers: (server) => ({ ...vaultHandlers(server.env), ...inboxHandlers(server.env) }),
};
