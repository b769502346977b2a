/** An endpoint of a map by its id, else by "METHOD /path" or GraphQL operation name when only one matches. */
import type { ApiEndpoint, ApiMap } from '../../../protocol/api-map.js';

export function findEndpoints(map: ApiMap, name: string): ApiEndpoint[] {
  const exact = map.endpoints.find((e) => e.id === name);
  if (exact) return [exact];
  const lower = name.toLowerCase();
  return map.endpoints.filter((e) => `${e.method} ${e.path}`.toLowerCase() === lower || `${e.method} ${e.origin}${e.path}`.toLowerCase() === lower || e.operation?.name === name);
}
