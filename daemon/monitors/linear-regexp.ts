/**
 * Regular expressions a user wrote, run on page text inside the daemon (monitor `ignore` lines): compiled for
 * V8's linear-time engine, so no pattern can stall the thread that serves every user by backtracking
 * ("(a+)+$" on a long line). The engine takes everything but backreferences and lookahead (and, before Node 24,
 * lookbehind), which are refused when the monitor is created. The V8 switch that enables it changes nothing else.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine');

/** The pattern on the linear-time engine; throws SyntaxError when it is not valid or needs backtracking. */
export function linearRegExp(source: string): RegExp {
  return new RegExp(source, 'l');
}
