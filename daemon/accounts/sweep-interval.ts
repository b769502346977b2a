/** How often the daemon looks for accounts disabled from outside it (the CLI writes the store); work that waits for a disabled account to be noticed waits at most this long. */
export const DISABLED_SWEEP_MS = 2000;
