/** The API map builder: buildApiMap from a HAR, mergeApiMaps for more traffic. Exports live in export.ts. */
export { buildApiMap, newApiMapId, WRITE_METHODS, type BuildOptions } from './build.js';
export { mergeApiMaps } from './merge.js';
