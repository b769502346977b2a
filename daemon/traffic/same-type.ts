/**
 * A compile-time check that a result schema (its TypeBox Static type) and the interface the handler's value
 * has are the same type, optional fields included: `const x: SameType<Static<typeof S>, I> = true` stops
 * `tsc` when a field is added to, dropped from or retyped on one side only. The suite's output check
 * (BROWSERD_CHECK_OUTPUT) sees only the paths tests take; this sees every field.
 */
export type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
