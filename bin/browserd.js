#!/usr/bin/env node
// The browserd command. TypeScript runs through tsx's loader (Node 20 has no type stripping).
import { register } from 'tsx/esm/api';
register();
await import('./cli.ts');
