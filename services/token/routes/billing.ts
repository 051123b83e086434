import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { BillingEventSchema, type BillingEvent } from '../../../bus/index.ts';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../../core/tenancy/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';
import { errorsOf, operation } from '../../../edge-http/index.ts';

export interface BillingRoutesOptions {
  /** Accepted secrets (BILLING_WEBHOOK_SECRET, split); empty: every call is refused. */
  secrets: readonly string[];
  clock?: () => number;
}

const eventValidator = Compile(BillingEventSchema);

const Received = Type.Object(
  {
    received: Type.Literal(true),
    duplicate: Type.Boolean(),
    /** What was done: `suspended`, `reactivated`, `plan changed`, or `ignored: <why>`; absent for a duplicate. */
    outcome: Type.Optional(Type.String()),
    tenantId: Type.Optional(Type.String()),
  },
  { description: 'Received: what was done, or that the event was seen before' },
);

function eventProblem(value: unknown): string | undefined {
  if (eventValidator.Check(value)) return undefined;
  const first = eventValidator.Errors(value)[0];
  if (first === undefined) return 'body is not a billing event';
  if (first.keyword === 'required')
    return `body${first.instancePath}/${(first.params as { requiredProperties: string[] }).requiredProperties.join(', ')} is required`;
  return `body${first.instancePath} ${first.message}`;
}

/**
 * `POST /billing/webhook` (public; its credential is the signature; docs/BILLING-WEBHOOK.md). The
 * signature covers the raw bytes as sent, so this route gets its own plugin whose only body parser
 * keeps the request as a Buffer: a parsed and re-serialised body (keys reordered, spaces dropped)
 * would no longer be what was signed. The rest of the API keeps its JSON-only parsing.
 */
export function billingRoutes(bus: Bus, o: BillingRoutesOptions): EdgeRoutes {
  const secrets = [...o.secrets];
  const clock = o.clock ?? Date.now;
  return async (app) => {
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.post(
        '/billing/webhook',
        {
          config: { authority: { kind: 'public' } },
          schema: {
            ...operation('tenancy', 'receiveBillingEvent', 'Receive a signed event from the billing provider'),
            // Described for the provider; checked by the handler, after the signature, on the bytes as sent.
            body: BillingEventSchema,
            response: { 200: Received, ...errorsOf(503) },
          },
          // The parser keeps the raw bytes (a Buffer), which no JSON schema describes: nothing to check before the handler.
          validatorCompiler: () => (value: unknown) => ({ value }),
        },
        async (request, reply) => {
          const body: unknown = request.body;
          const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
          const header = request.headers[SIGNATURE_HEADER];
          const check = verifyWebhookSignature({
            header: typeof header === 'string' ? header : undefined,
            rawBody: raw,
            secrets,
            nowSeconds: Math.floor(clock() / 1000),
          });
          // Spec: 400 on a failed verification. The reason names the check that failed, never a value.
          if (!check.ok) return sendError(reply, { code: 'INVALID_REQUEST', message: `billing signature refused: ${check.reason}` });
          let event: unknown;
          try {
            event = JSON.parse(raw.toString('utf8'));
          } catch {
            return sendError(reply, { code: 'INVALID_REQUEST', message: 'body is not valid JSON' });
          }
          const problem = eventProblem(event);
          if (problem !== undefined) return sendError(reply, { code: 'INVALID_REQUEST', message: problem });
          const e = event as BillingEvent;
          // Only the fields we read travel on: the bus schema is the contract, not the provider's extras.
          const result = await bus.request(subjects.tenancyBillingEvent, {
            event: {
              id: e.id,
              type: e.type,
              ...(e.data !== undefined
                ? {
                    data: {
                      ...(e.data.externalRef !== undefined ? { externalRef: e.data.externalRef } : {}),
                      ...(e.data.plan !== undefined ? { plan: e.data.plan } : {}),
                    },
                  }
                : {}),
            },
          });
          if (!result.ok) return sendError(reply, result.error);
          const { duplicate, outcome, tenantId } = result.value;
          return reply.send(
            duplicate ? { received: true, duplicate: true } : { received: true, duplicate: false, outcome, ...(tenantId !== undefined ? { tenantId } : {}) },
          );
        },
      );
    });
  };
}
