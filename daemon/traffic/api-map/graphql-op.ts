/**
 * GraphQL requests: a POST whose JSON body has a `query` string, or a GET with ?query=. The document is parsed
 * with the graphql reference parser for the operation's type (a mutation is a write) and name; an unnamed
 * operation is called "anonymous". A document that does not parse is not GraphQL to us (an ordinary endpoint).
 */
import type { OperationDefinitionNode } from 'graphql';
import { lazyRequire } from '../../lazy-require.js';
import type { ApiEntry } from './har-input.js';
import { parseJson } from './har-input.js';

/** The reference parser, loaded with the first document (about 2 MB of heap a daemon building no API map never needs). */
const graphql = lazyRequire<typeof import('graphql')>('graphql');

export interface GraphqlCall {
  type: 'query' | 'mutation' | 'subscription';
  name: string;
  /** The body as JSON (POST) or the variables of a GET, for the body schema. */
  variables?: unknown;
}

function operation(query: string, wanted: string | undefined): { type: GraphqlCall['type']; name: string } | undefined {
  let ops: OperationDefinitionNode[];
  try {
    ops = graphql().parse(query, { noLocation: true }).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  } catch {
    return undefined;
  }
  const op = (wanted && ops.find((o) => o.name?.value === wanted)) || ops[0];
  if (!op) return undefined;
  return { type: op.operation as GraphqlCall['type'], name: op.name?.value ?? wanted ?? 'anonymous' };
}

export function graphqlCall(e: ApiEntry): GraphqlCall | undefined {
  if (e.kind !== 'http') return undefined;
  if (e.method === 'GET') {
    const q = e.url.searchParams.get('query');
    if (!q) return undefined;
    const op = operation(q, e.url.searchParams.get('operationName') ?? undefined);
    const vars = e.url.searchParams.get('variables');
    return op && { ...op, variables: vars ? parseJson(vars) : undefined };
  }
  const body = parseJson(e.requestBody?.text);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.query !== 'string') return undefined;
  const op = operation(b.query, typeof b.operationName === 'string' ? b.operationName : undefined);
  return op && { ...op, variables: b.variables };
}
