/**
 * Writes src/generated/<listener>.ts: the types of every route of the five HTTP services, generated
 * by openapi-typescript from the OpenAPI documents the live suite serves (themselves generated from
 * the TypeBox schemas that validate and serialize each route). `npm run client:types`;
 * integration/client-types.test.ts fails when the committed files differ from what this writes.
 */
import { writeFile } from 'node:fs/promises';
import { generatedTypes, LISTENERS } from './types-source.ts';

for (const [listener, text] of Object.entries(await generatedTypes())) {
  await writeFile(new URL(`../src/generated/${listener}.ts`, import.meta.url), text);
}
process.stdout.write(`wrote client/src/generated/{${LISTENERS.join(',')}}.ts\n`);
process.exit(0);
