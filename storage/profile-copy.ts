/**
 * What a copy of a Chromium profile leaves out (a backup, a user's move to another host): the folders Chromium
 * rebuilds by itself, and the live browser's lock files (`SingletonLock`, `SingletonSocket`, `SingletonCookie`),
 * which would make the copy look like a profile some browser still holds.
 */
const REBUILT = new Set(['Cache', 'Code Cache', 'GPUCache', 'DawnGraphiteCache', 'DawnWebGPUCache', 'GraphiteDawnCache', 'GrShaderCache', 'ShaderCache', 'Crashpad', 'component_crx_cache']);

export const leftOutOfProfileCopy = (name: string): boolean => REBUILT.has(name) || name.startsWith('Singleton');
