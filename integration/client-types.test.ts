import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generatedTypes, LISTENERS } from '../client/scripts/types-source.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * client/src/generated/ is what openapi-typescript makes of the live suite's OpenAPI documents: a
 * route or schema changed without `npm run client:types` fails here, so the client's types cannot
 * drift from the routes.
 */
describe("the client library's generated types", () => {
  it('are what the live OpenAPI documents generate (run `npm run client:types` when this fails)', { timeout: machineTimeout(180_000) }, async () => {
    const fresh = await generatedTypes();
    for (const listener of LISTENERS) {
      const committed = await readFile(new URL(`../client/src/generated/${listener}.ts`, import.meta.url), 'utf8');
      expect(committed, `client/src/generated/${listener}.ts is stale`).toBe(fresh[listener]);
    }
  });
});
