import { sql } from 'slonik';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowSchema } from '../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../testing/storage.ts';
import { decide, insertCodeRequest, recordIssued, spendCode } from './authorizations.ts';
import { oauthService } from './index.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * A replayed authorization code against the token its first redemption is minting (RFC 9700 §4.5.3.1:
 * what a replayed code issued is revoked). The mint records its jti on the authorization in its own
 * transaction; a replay marks the authorization revoked and revokes what it finds. Whichever comes
 * first, no token issued from a replayed code stays unrevoked: a mint after the replay is refused, a
 * replay after the mint finds the jti. On both storages; on Postgres the two really overlap.
 */
const noProblem = () => undefined;
const Count = rowSchema(Type.Object({ count: Type.Integer() }));

describe.each(storageKinds())('a replayed authorization code on $kind', ({ kind, open }) => {
  let db: TestStorage;
  beforeAll(async () => {
    db = await open({ migrationSets: [oauthService.migrations!] });
  }, machineTimeout(60_000));
  afterAll(() => db?.dispose());

  async function approvedCode(): Promise<{ code: string; requestId: string }> {
    const now = Math.floor(Date.now() / 1000);
    const pool = db.storage.pool;
    const request = await insertCodeRequest(pool, {
      clientId: 'desk-app',
      scope: ['executions:read'],
      resource: undefined,
      maxLifetimeSeconds: 600,
      now,
      redirectUri: 'http://127.0.0.1/callback',
      state: 'state',
      codeChallenge: 'challenge',
    });
    const decided = await decide(pool, request.requestId, { approvedBy: 'alice', scope: ['executions:read'], lifetimeSeconds: 300, tenantId: null }, now);
    if (!decided.ok || decided.code === undefined) throw new Error('the request was not approved');
    return { code: decided.code, requestId: request.requestId };
  }

  it('refuses to issue the token of a redemption when the code was presented again before its mint', async () => {
    const { code, requestId } = await approvedCode();
    const now = Math.floor(Date.now() / 1000);
    expect((await spendCode(db.storage.pool, code, now, noProblem)).kind).toBe('live');
    const replay = await spendCode(db.storage.pool, code, now, noProblem);
    expect(replay).toMatchObject({ kind: 'reused', accessJti: null });
    expect(await recordIssued(db.storage.pool, requestId, 'jti-too-late')).toBe(false);
  });

  it('hands the replay the jti of a token minted before it, to revoke', async () => {
    const { code, requestId } = await approvedCode();
    const now = Math.floor(Date.now() / 1000);
    expect((await spendCode(db.storage.pool, code, now, noProblem)).kind).toBe('live');
    expect(await recordIssued(db.storage.pool, requestId, 'jti-first')).toBe(true);
    expect(await spendCode(db.storage.pool, code, now, noProblem)).toMatchObject({ kind: 'reused', accessJti: 'jti-first' });
  });

  // Only Postgres runs two sessions at once; PGlite's one session serialises the two (not a skip:
  // the case does not exist there).
  if (kind === 'postgres') {
    it('makes a replay that arrives while the mint is still open wait for its commit, then find its jti', async () => {
      const { code, requestId } = await approvedCode();
      const now = Math.floor(Date.now() / 1000);
      expect((await spendCode(db.storage.pool, code, now, noProblem)).kind).toBe('live');
      // The mint holds its transaction open after recording its jti, until the replay is seen waiting.
      const { promise: recorded, resolve: setRecorded } = Promise.withResolvers<boolean>();
      const { promise: commit, resolve: letCommit } = Promise.withResolvers<void>();
      const mint = db.storage.pool.transaction(async (tx) => {
        setRecorded(await recordIssued(tx, requestId, 'jti-in-flight'));
        await commit;
      });
      expect(await recorded).toBe(true);
      let settledEarly = false;
      const replay = spendCode(db.storage.pool, code, now, noProblem).finally(() => {
        settledEarly = true;
      });
      // The replay's `select … for update` is seen waiting on the mint's row lock.
      await expect
        .poll(() =>
          db.storage.pool.oneFirst(sql.type(Count)`select count(*)::int from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
        )
        .toBe(1);
      expect(settledEarly).toBe(false);
      letCommit();
      await mint;
      expect(await replay).toMatchObject({ kind: 'reused', accessJti: 'jti-in-flight' });
    });
  }
});
