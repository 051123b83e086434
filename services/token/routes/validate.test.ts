import { afterEach, describe, expect, it } from 'vitest';
import { SuiteError, createBus, createMemoryNetwork, type Bus } from '../../../bus/index.ts';
import type { AuditDecision } from '../../../edge-http/index.ts';
import { MapVerifier, RecordingAudit } from '../../../testing/edge-doubles.ts';
import { ADMIN_KEY, testApp } from '../../../testing/edge-app.ts';
import { tokenRoutes } from './token.ts';

/**
 * A sink whose first entry (the guard's) is durable at once and the later ones only when the test
 * says so: the route pipeline's own wait covers the guard's entry only, so only the route's wait
 * for its validation entry can hold the answer.
 */
class GatedAudit extends RecordingAudit {
  #open: () => void = () => {};
  #gate = new Promise<void>((open) => (this.#open = open));
  durable(upTo = this.decisions.length): Promise<void> {
    return upTo <= 1 ? Promise.resolve() : this.#gate;
  }
  recorded(): number {
    return this.decisions.length;
  }
  open(): void {
    this.#open();
  }
}

const CLAIMS = { sub: 'agent-7', scope: ['read:*'], jti: 'jti-7', exp: 4_000_000_000 };

// No actor serves suite.tokens.validate on this bus: an answer can only come from the edge itself.
const buses: Bus[] = [];
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.drain()));
});

async function edge(audit: RecordingAudit, configure: (v: MapVerifier) => void = () => {}) {
  const bus = createBus(createMemoryNetwork().connect());
  buses.push(bus);
  const verifier = new MapVerifier({ adminKey: ADMIN_KEY })
    .grant('caller-token', { sub: 'validator', scope: ['auth:token:validate'], jti: 'jti-caller', exp: 4_000_000_000 })
    .grant('subject-token', CLAIMS)
    .refuse('expired-token', { code: 'TOKEN_EXPIRED', message: 'token has expired' });
  configure(verifier);
  const { app } = await testApp(tokenRoutes(bus, { verifier, audit }), { verifier, audit });
  const validate = (body: object, headers: Record<string, string> = { authorization: 'Bearer caller-token' }) =>
    app.inject({ method: 'POST', url: '/auth/token/validate', headers, payload: body });
  return { app, verifier, validate };
}

const validationEntries = (decisions: AuditDecision[]) => decisions.filter((d) => d.resource !== 'token POST /auth/token/validate');

describe('POST /auth/token/validate, decided at the edge', () => {
  it('answers a valid token with its claims without a bus hop to the token actor, and audits the caller and the token', async () => {
    const audit = new RecordingAudit();
    const { validate } = await edge(audit);
    const plain = await validate({ token: 'subject-token' });
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toEqual({ valid: true, sub: 'agent-7', scope: ['read:*'], exp: 4_000_000_000 });
    const scoped = await validate({ token: 'subject-token', requiredScope: 'read:users' });
    expect(scoped.json()).toEqual({ valid: true, sub: 'agent-7', scope: ['read:*'], exp: 4_000_000_000, requiredScope: 'read:users', scopeSatisfied: true });
    expect(audit.decisions.filter((d) => d.subject === 'validator').map((d) => d.result)).toEqual(['allow', 'allow']);
    expect(validationEntries(audit.decisions)).toEqual([
      { subject: 'agent-7', action: 'auth:token:validate', resource: 'token:jti-7', result: 'allow', reason: 'valid' },
      { subject: 'agent-7', action: 'auth:token:validate', resource: 'token:jti-7', result: 'allow', reason: 'scope read:users satisfied' },
    ]);
  });

  it('answers 400 {valid:false} for a refused token or an unmet scope, each audited as a deny', async () => {
    const audit = new RecordingAudit();
    const { validate } = await edge(audit);
    const expired = await validate({ token: 'expired-token' });
    expect([expired.statusCode, expired.json()]).toEqual([400, { valid: false, error: 'TOKEN_EXPIRED' }]);
    const unknown = await validate({ token: 'nobody-issued-this' });
    expect([unknown.statusCode, unknown.json()]).toEqual([400, { valid: false, error: 'TOKEN_INVALID' }]);
    const deeper = await validate({ token: 'subject-token', requiredScope: 'write:users' });
    expect([deeper.statusCode, deeper.json()]).toEqual([
      400,
      { valid: false, error: 'CAPABILITY_INSUFFICIENT', requiredScope: 'write:users', scopeSatisfied: false },
    ]);
    expect(validationEntries(audit.decisions).map((d) => [d.subject, d.resource, d.result, d.reason])).toEqual([
      ['unknown', 'token', 'deny', 'TOKEN_EXPIRED'],
      ['unknown', 'token', 'deny', 'TOKEN_INVALID'],
      ['agent-7', 'token:jti-7', 'deny', 'CAPABILITY_INSUFFICIENT'],
    ]);
  });

  it('sends the answer only once its audit entry is durable', async () => {
    const audit = new GatedAudit();
    const { validate } = await edge(audit);
    let answered = false;
    const pending = validate({ token: 'subject-token' }).then((r) => {
      answered = true;
      return r;
    });
    await expect.poll(() => validationEntries(audit.decisions).length, { timeout: 10_000 }).toBe(1);
    await new Promise((settle) => setImmediate(settle));
    expect(answered).toBe(false);
    audit.open();
    expect((await pending).statusCode).toBe(200);
  });

  it('refuses with 503 and no verdict while the revocation view is not current, for an admin-key caller too', async () => {
    const audit = new RecordingAudit();
    const { validate } = await edge(audit, (v) => v.setRevocationTrusted(false));
    const refused = await validate({ token: 'subject-token' }, { 'x-suite-admin-key': ADMIN_KEY });
    expect([refused.statusCode, refused.json().error.code]).toEqual([503, 'REVOCATION_UNAVAILABLE']);
    expect(validationEntries(audit.decisions)).toEqual([]);
  });

  it('refuses with 503, not a verdict, when its audit entry cannot be made durable, and answers while the trail is stalled but it can', async () => {
    const failing = new (class extends RecordingAudit {
      recorded = () => this.decisions.length;
      // The guard's entry (the first) is durable; the validation's cannot be made so.
      durable = (upTo = this.decisions.length) =>
        upTo <= 1 ? Promise.resolve() : Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', 'audit entry not committed within 3000 ms'));
    })();
    const { validate } = await edge(failing);
    const refused = await validate({ token: 'subject-token' }, { 'x-suite-admin-key': ADMIN_KEY });
    expect([refused.statusCode, refused.json().error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    // A stalled trail refuses bearers (verifyBearer) but not the validated token's own check: its
    // entry can still be made durable (a journal), which is what the answer waits for.
    const stalled = new RecordingAudit();
    const { validate: validateStalled } = await edge(stalled, (v) => {
      v.verifyBearer = async () => ({ ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'audit trail unavailable; try again shortly' } });
    });
    const answered = await validateStalled({ token: 'subject-token' }, { 'x-suite-admin-key': ADMIN_KEY });
    expect([answered.statusCode, answered.json().valid]).toEqual([200, true]);
  });
});
