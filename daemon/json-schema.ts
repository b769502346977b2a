/**
 * Callers' JSON Schemas (crawl outputSchema, extraction schemas, extractors), compiled once and kept: the same
 * schema is checked on every page of a crawl. A few distinct ones are kept, not every one ever seen. Two
 * compilers: strict types, and one that takes "12.50" for a number (a CSS selector always reads text).
 */
import { Ajv, type ValidateFunction } from 'ajv';

const KEPT = 100;

function cachedCompiler(ajv: Ajv) {
  const compiled = new Map<string, ValidateFunction>();
  return (schema: Record<string, unknown>): ValidateFunction => {
    const key = JSON.stringify(schema);
    let v = compiled.get(key);
    if (!v) {
      v = ajv.compile(schema);
      if (compiled.size > KEPT) compiled.clear();
      compiled.set(key, v);
    }
    return v;
  };
}

/** The schema's validator (throws when the schema itself does not compile). */
export const schemaValidator = cachedCompiler(new Ajv({ allErrors: true, strict: false }));

/** The same, coercing text to the schema's types (useDefaults off: a value the page lacks is never made up). */
export const coercingSchemaValidator = cachedCompiler(new Ajv({ allErrors: true, strict: false, coerceTypes: true }));
