import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes, routeSchemas } from '../../edge-http/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 23 part 6 and issue 25 finding 8, as a rule over the live route table (a route added later
 * is held to it the day it is added): every `limit` has a default (`GET /runtime/logs` without one
 * answered 400), and every integer or number in a query string or a body has a maximum and a
 * minimum (past bigint, Postgres answered 500). integration/hostile-input.test.ts sends the
 * out-of-range values themselves.
 */
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite({ SUITE_SIGNUP_ENABLED: 'true', BILLING_WEBHOOK_SECRET: 'whsec_bounds_0123456789abcdef' });
}, machineTimeout(60_000));
afterAll(() => t?.stop());

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; default?: unknown; minimum?: number; maximum?: number };

/** Every numeric field of a schema, with its path, nested objects, arrays and unions included. */
function numericFields(schema: Schema | undefined, path: string, out: Array<[string, Schema]>): Array<[string, Schema]> {
  if (schema === undefined) return out;
  if (schema.type === 'integer' || schema.type === 'number') out.push([path, schema]);
  for (const [key, child] of Object.entries(schema.properties ?? {})) numericFields(child, `${path}/${key}`, out);
  if (schema.items !== undefined) numericFields(schema.items, `${path}/items`, out);
  for (const branch of schema.anyOf ?? []) numericFields(branch, path, out);
  return out;
}

/**
 * Numbers whose range a named rule checks, or that are not ours to bound: the cost rules
 * (core/chain/cost-rules.ts: "amount must be at most 2^53 - 1 minor units", with the spec's own
 * messages for a negative or fractional amount; a quantity is any finite number claimed), and the
 * values of a Postgres connector query, whose columns at the provider decide their range.
 */
const RULED_ELSEWHERE = new Set(['body/cost/amount', 'body/cost/quantity', 'body/params/items']);

describe('numbers on every route', () => {
  it('gives every limit a default, and every numeric query or body field a minimum and a maximum', () => {
    const problems: string[] = [];
    for (const edge of t.suite.edges) {
      for (const route of listRoutes(edge.app)) {
        const schemas = routeSchemas(route) as { querystring?: Schema; body?: Schema };
        const where = `${edge.service} ${route.method} ${route.url}`;
        const limit = schemas.querystring?.properties?.limit;
        if (limit !== undefined && limit.default === undefined) problems.push(`${where}: querystring/limit has no default`);
        for (const part of ['querystring', 'body'] as const) {
          for (const [path, field] of numericFields(schemas[part], part, [])) {
            if (RULED_ELSEWHERE.has(path)) continue;
            if (field.minimum === undefined || field.maximum === undefined) problems.push(`${where}: ${path} is not bounded`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
