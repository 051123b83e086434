import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { IdentityKind, IdentitySubject, PublicKeyPem, SuspensionReason } from '../../../bus/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendResult } from '../../../edge-http/index.ts';
import { callerOf } from '../../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../../edge-http/index.ts';

const EnrolBody = Type.Object({ subject: IdentitySubject, kind: IdentityKind, publicKeyPem: PublicKeyPem }, { additionalProperties: false });
const SubjectParams = Type.Object({ subject: Type.String({ minLength: 1, maxLength: 1024 }) });
const SuspendBody = Type.Object({ reason: SuspensionReason }, { additionalProperties: false });
/**
 * The challenge's own budget per client (address, or credential when one is sent), tighter than the
 * edge's default: every answer stores a row, and an agent needs one challenge per token.
 */
export const CHALLENGE_RATE_LIMIT = Object.freeze({ max: 120, timeWindow: 60_000 });

/** The challenge takes no input but the subject: no body, or an empty object. */
const ChallengeBody = Type.Object({}, { additionalProperties: false });

/** Identities of the token service (spec, "Identity"; docs/IDENTITIES.md). */
export function identityRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.post(
      '/identities',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          ...operation('identities', 'enrolIdentity', 'Enrol an identity: tokens in its name then need proof of its key'),
          body: EnrolBody,
          response: { 201: answer(subjects.identitiesEnrol.reply, 'Enrolled'), ...errorsOf(409) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.identitiesEnrol, { ...request.body, caller: callerOf(request) }), 201),
    );

    app.get(
      '/identities/:subject',
      {
        config: { authority: { kind: 'scope', scope: 'identity:read', admin: true } },
        schema: {
          ...operation('identities', 'getIdentity', 'Read an enrolled identity'),
          params: SubjectParams,
          response: { 200: answer(subjects.identitiesGet.reply, 'The identity and its status'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.identitiesGet, { subject: request.params.subject })),
    );

    // Public on purpose: the agent asking has no token yet (that is what the proof is for). It is
    // rate limited per client address by the edge's limiter, with its own budget, and stores
    // nothing for a subject that is not enrolled and active (docs/IDENTITIES.md, "Challenge").
    app.post(
      '/identities/:subject/challenge',
      {
        config: { authority: { kind: 'public' }, rateLimit: CHALLENGE_RATE_LIMIT },
        schema: {
          ...operation('identities', 'challengeIdentity', "A nonce to sign with the identity's key, for the token request's proof"),
          params: SubjectParams,
          body: ChallengeBody,
          response: { 200: answer(subjects.identitiesChallenge.reply, 'The nonce (sign its UTF-8 bytes) and when it expires'), ...errorsOf(403, 404, 503) },
        },
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.identitiesChallenge, { subject: request.params.subject })),
    );

    app.post(
      '/identities/:subject/suspend',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          ...operation('identities', 'suspendIdentity', 'Suspend an identity and revoke its tokens'),
          params: SubjectParams,
          body: SuspendBody,
          response: { 200: answer(subjects.identitiesSuspend.reply, 'Suspended; `revokedTokens` counts the tokens revoked'), ...errorsOf(404) },
        },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(subjects.identitiesSuspend, {
            subject: request.params.subject,
            reason: request.body.reason,
            caller: callerOf(request),
          }),
        ),
    );
  };
}
