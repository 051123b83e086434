import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, type Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { registerTraceKey } from '../../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { createTraceSigner } from '../../../core/chain/index.ts';
import { ExecutionReaderActor } from './reader-actor.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = () => createTraceSigner(pem());
const pglite = storageKinds().find((k) => k.kind === 'pglite');
if (!pglite) throw new Error('no PGlite storage kind');

/** A writer of another process publishing its key straight into the database, announcing it or not. */
async function publishKey(db: TestStorage, bus: Bus | undefined): Promise<string> {
  const s = signer();
  expect(await registerTraceKey(db.storage.pool, { keyId: s.keyId, publicKeyPem: s.publicKeyPem, ephemeral: false, holder: 'elsewhere' })).toBe(true);
  bus?.publish(subjects.executionsKeyPublished, { keyId: s.keyId });
  await bus?.flush();
  return s.keyId;
}

describe('the current trace key as the reader answers it', () => {
  let db: TestStorage | undefined;
  let reader: ExecutionReaderActor | undefined;
  let bus: Bus | undefined;
  afterEach(async () => {
    await reader?.stop();
    await bus?.drain();
    await db?.dispose();
    reader = undefined;
    bus = undefined;
    db = undefined;
  });

  const start = async (currentKeyTtlMs: number) => {
    db = await pglite.open();
    bus = createBus(createMemoryNetwork().connect());
    reader = new ExecutionReaderActor({ bus, storage: db.storage, currentKeyTtlMs });
    reader.start();
    await bus.flush();
    return { db, bus };
  };
  const current = async (b: Bus) => {
    const r = await b.request(subjects.executionsKeys, {});
    return r.ok ? r.value.keyId : r.error.code;
  };

  it('gives the same answer again until it has aged, then reads the database again', async () => {
    // Long enough that a slow machine answers twice within it; short enough to wait out.
    const { db, bus } = await start(1_000);
    const first = await publishKey(db, undefined);
    expect(await current(bus)).toBe(first);
    // Another process's writer leads now, and its announcement was lost: the kept answer stands...
    const second = await publishKey(db, undefined);
    expect(await current(bus)).toBe(first);
    // ...for its time only.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await current(bus)).toBe(second);
  });

  it('drops the kept answer as soon as a writer announces its key', async () => {
    const { db, bus } = await start(60_000);
    const first = await publishKey(db, bus);
    expect(await current(bus)).toBe(first);
    const second = await publishKey(db, bus);
    expect(await current(bus)).toBe(second);
  });

  it('does not keep "no key yet": the first key published is named at once', async () => {
    const { db, bus } = await start(60_000);
    expect(await current(bus)).toBe('SERVICE_UNAVAILABLE');
    const first = await publishKey(db, undefined);
    expect(await current(bus)).toBe(first);
  });

  it('looks a key up by its id in the database every time, never from the kept answer', async () => {
    const { db, bus } = await start(60_000);
    const keyId = await publishKey(db, undefined);
    expect(await current(bus)).toBe(keyId);
    const r = await bus.request(subjects.executionsKeys, { keyId: 'ed25519-0000000000000000' });
    expect(r.ok ? r.value : r.error.code).toBe('NOT_FOUND');
  });
});

describe('a writer that starts to lead', () => {
  let db: TestStorage | undefined;
  let h: ExecutionHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('announces the key it has published, before it serves appends signed with it', async () => {
    db = await pglite.open();
    h = await startExecutionHarness({ storage: db.storage });
    const announced: string[] = [];
    const sub = h.bus.subscribe(subjects.executionsKeyPublished, ({ data }) => void announced.push(data.keyId));
    await h.bus.flush();
    const key = pem();
    const next = createTraceSigner(key);
    await h.restartWriter(key);
    const r = await h.record(executionBody());
    await sub.unsubscribe();
    expect(r.status).toBe(201);
    expect(r.body.keyId).toBe(next.keyId);
    expect(announced).toEqual([next.keyId]);
  });
});
