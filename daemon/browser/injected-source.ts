/** The bundled in-page script. injected/generated/ is built by scripts/build-injected.ts (`npm run build`), never committed. */
import { INJECTED_SOURCE } from '../../injected/generated/source.js';

export function injectedSource(): string {
  return INJECTED_SOURCE;
}
