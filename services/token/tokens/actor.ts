import { decodeJwt } from 'jose';
import { clipText, type Bus, type RequestOf, type Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { SuiteError } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import { insertIssuedToken } from '../../../storage/index.ts';
import { mintToken, verifyToken, type TokenChecker } from '../../../actors/capability/index.ts';
import {
  decideValidity,
  isValidScope,
  parseDurationSeconds,
  scopeGrants,
  suiteScopeProblem,
  VALIDATE_ACTION,
  type HmacKeyRing,
} from '../../../core/capability/index.ts';
import type { AuditBatcher } from '../../../actors/audit/index.ts';
import { proveIssuance } from '../identities/index.ts';
import { normaliseSubject } from '../../../core/subject/index.ts';
import { conditionsDropped, tokenConditionsProblem } from '../../../core/gateway-policy/index.ts';

import { replyOf } from '../../../actors/base/index.ts';
import { BusActor } from '../../../actors/base/index.ts';

export interface TokenActorOptions {
  bus: Bus;
  storage: Storage;
  ring: HmacKeyRing;
  checker: TokenChecker;
  audit: AuditBatcher;
  audience?: string;
  clock?: () => number;
}

const DEFAULT_LIFETIME = '24h';

/** Issue, validate and revoke capability tokens (token service, spec "Token service"). */
export class TokenActor extends BusActor {
  readonly #o: TokenActorOptions;
  readonly #clock: () => number;

  constructor(o: TokenActorOptions) {
    super();
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    return [
      bus.serve(subjects.tokenIssue, ({ data }) => replyOf(() => this.#issue(data)), { queue: 'tokens' }),
      bus.serve(subjects.tokenValidate, ({ data }) => replyOf(() => this.#validate(data)), { queue: 'tokens' }),
      bus.serve(subjects.tokenRevoke, ({ data }) => replyOf(() => this.#revoke(data)), { queue: 'tokens' }),
    ];
  }

  async #issue(sent: RequestOf<typeof subjects.tokenIssue>) {
    const { ring, storage, audit } = this.#o;
    // Tokens are minted for the stored spelling of a subject only (core/subject; docs/IDENTITIES.md).
    const rule = normaliseSubject(sent.sub);
    if (!rule.ok) throw new SuiteError('INVALID_REQUEST', `sub ${rule.problem}`);
    const req = { ...sent, sub: rule.subject };
    const bad = req.scope.find((s) => !isValidScope(s));
    if (bad !== undefined) throw new SuiteError('INVALID_REQUEST', `scope entry "${bad}" is not of the form resource:action`);
    for (const s of req.scope) {
      const problem = suiteScopeProblem(s);
      if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', problem);
    }
    const lifetime = parseDurationSeconds(req.expiresIn ?? DEFAULT_LIFETIME);
    if (lifetime === undefined) {
      throw new SuiteError('INVALID_REQUEST', 'expiresIn must be a duration such as 30s, 15m, 8h or 7d, at most 365d');
    }
    const resource = `token:${req.sub}`;
    if (req.caller.kind === 'token') {
      // Attenuation: a token can hand on only authority it holds itself.
      const beyond = req.scope.find((s) => !scopeGrants(req.caller.scope, s));
      if (beyond !== undefined) {
        audit.record({
          subject: req.caller.sub,
          action: 'auth:token:create',
          resource,
          result: 'deny',
          reason: `scope ${beyond} exceeds the caller's own`,
          tenantId: req.caller.tenantId ?? null,
        });
        await audit.durable();
        throw new SuiteError('CAPABILITY_INSUFFICIENT', `cannot issue scope "${beyond}": the calling token does not hold it`);
      }
    }
    if (req.conditions !== undefined) {
      const problem = tokenConditionsProblem(req.conditions);
      if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', problem);
    }
    // Attenuation of conditions: a bound token hands on its bounds (core/gateway-policy/conditions.ts).
    const dropped = conditionsDropped(req.caller.conditions, req.conditions);
    if (dropped !== undefined) {
      audit.record({
        subject: req.caller.sub,
        action: 'auth:token:create',
        resource,
        result: 'deny',
        reason: `the condition on ${dropped} of the caller's token is not carried`,
        tenantId: req.caller.tenantId ?? null,
      });
      await audit.durable();
      throw new SuiteError(
        'CAPABILITY_INSUFFICIENT',
        `cannot issue a token without the calling token's condition on "${dropped}": a bound token hands on its bounds`,
      );
    }
    const aud = req.aud ?? this.#o.audience;
    const now = Math.floor(this.#clock() / 1000);
    const tenantId = req.caller.tenantId;
    // One transaction: the identity's verdict (proof, suspension) and the issued-token row commit
    // together, so a suspension cannot miss this token (services/token/identities/issuance.ts).
    const issued = await storage.pool.transaction(async (tx) => {
      const verdict = await proveIssuance(tx, req.sub, req.proof);
      if (!verdict.ok) return verdict;
      const { proven } = verdict;
      const minted = await mintToken(ring, {
        sub: req.sub,
        scope: req.scope,
        lifetimeSeconds: lifetime,
        now,
        ...(aud !== undefined ? { aud } : {}),
        ...(tenantId !== undefined ? { ten: tenantId } : {}),
        ...(proven ? { prf: true } : {}),
        ...(req.conditions !== undefined ? { cnd: req.conditions } : {}),
      });
      await insertIssuedToken(tx, {
        jti: minted.jti,
        sub: req.sub,
        scope: req.scope,
        tenantId: tenantId ?? null,
        kid: minted.kid,
        iat: minted.iat,
        exp: minted.exp,
        proven,
      });
      return { ok: true as const, minted, proven };
    });
    if (!issued.ok) {
      const { code, message } = issued.error;
      if (code !== 'INVALID_REQUEST') {
        audit.record({
          subject: req.caller.sub,
          action: 'auth:token:create',
          resource,
          result: 'deny',
          reason: clipText(`${code}: ${message}`, 1024),
          tenantId: tenantId ?? null,
        });
        await audit.durable();
      }
      throw new SuiteError(code, message);
    }
    const { minted, proven } = issued;
    await audit.recordAndWait({
      subject: req.caller.sub,
      action: 'auth:token:create',
      resource,
      result: 'allow',
      // Up to 100 scopes of 200 characters would not fit the entry's 1024: the scope comes last and
      // is cut (the issued_tokens row keeps it whole); an entry over its limit would be refused.
      reason: clipText(
        `issued ${minted.jti} (expires ${new Date(minted.exp * 1000).toISOString()}${proven ? ", with proof of the identity's key" : ''}) with scope ${req.scope.join(' ')}`,
        1024,
      ),
      tenantId: tenantId ?? null,
    });
    return minted;
  }

  /**
   * For bus callers (MCP tools, other processes): the HTTP edge decides locally by the same rule
   * (services/token/routes/validate.ts). The answer leaves once its decision's audit entry is
   * durable (docs/DECISIONS.md, "Audit entries of answered decisions").
   */
  async #validate(req: RequestOf<typeof subjects.tokenValidate>) {
    const answer = await this.#decideValidity(req);
    await this.#o.audit.durable();
    return answer;
  }

  async #decideValidity(req: RequestOf<typeof subjects.tokenValidate>) {
    const { checker, audit } = this.#o;
    if (!checker.revocationTrusted()) throw new SuiteError('REVOCATION_UNAVAILABLE', 'revocation state is not current; refusing to validate');
    const result = await checker.check(req.token);
    const { answer, entry } = decideValidity(result.ok ? result : { ok: false, code: result.error.code }, req.requiredScope);
    audit.record({ ...entry, action: VALIDATE_ACTION, tenantId: req.caller.tenantId ?? null });
    return answer;
  }

  async #revoke(req: RequestOf<typeof subjects.tokenRevoke>) {
    const { bus, ring, audit } = this.#o;
    let jti = req.jti;
    let exp: number | undefined;
    if (req.token !== undefined) {
      const now = Math.floor(this.#clock() / 1000);
      const verified = await verifyToken(ring, req.token, { now });
      if (verified.ok) {
        jti = verified.claims.jti;
        exp = verified.claims.exp;
      } else if (verified.error.code === 'TOKEN_EXPIRED') {
        // The signature held (jose checks it before the claims): the token is ours, and already dead.
        return { revoked: false, jti: String(decodeJwt(req.token).jti ?? '') };
      } else {
        throw new SuiteError('INVALID_REQUEST', 'token is not a valid token of this service');
      }
      if (req.jti !== undefined && req.jti !== jti) throw new SuiteError('INVALID_REQUEST', 'jti does not match the token');
    }
    if (jti === undefined) throw new SuiteError('INVALID_REQUEST', 'body must carry token or jti');
    const result = await bus.request(subjects.revocationRevoke, { jti, by: req.caller.sub, ...(exp !== undefined ? { exp } : {}) });
    if (!result.ok) throw new SuiteError(result.error.code, result.error.message);
    // The revocation is committed and broadcast: it is answered as done even when its audit entry
    // is still queued (a stalled trail), never as a failure that did in fact take effect.
    await audit.recordEffect({
      subject: req.caller.sub,
      action: 'auth:token:revoke',
      resource: `token:${jti}`,
      result: 'allow',
      reason: result.value.revoked ? 'revoked' : 'nothing to revoke (unknown or expired)',
      tenantId: req.caller.tenantId ?? null,
    });
    return { revoked: result.value.revoked, jti };
  }
}
