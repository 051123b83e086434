import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { PLANS } from '../../../core/tenancy/index.ts';
import type { EdgeApp, EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';
import { errorsOf, operation } from '../../../edge-http/index.ts';

/**
 * What a signup's bootstrap token may do (docs/TENANCY.md, "Signup"): mint narrower tokens for the
 * tenant's agents, validate and revoke them, record and read its executions, read its audit
 * entries. Never tenant management. Every token it mints carries the tenant too.
 */
export const SIGNUP_SCOPES = Object.freeze([
  'auth:token:create',
  'auth:token:validate',
  'auth:token:revoke',
  'audit:read',
  'execution:record',
  'execution:read',
]);
const SIGNUP_TOKEN_LIFETIME = '30d';

const SignupBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })),
  },
  { additionalProperties: false },
);

/** The new tenant with its key, and the bootstrap token when one could be issued. */
const SignupCreated = Type.Intersect([
  subjects.tenancyCreate.reply,
  Type.Object({
    bootstrapToken: Type.Optional(Type.Object({ token: Type.String(), jti: Type.String(), exp: Type.Integer(), scope: Type.Array(Type.String()) })),
  }),
]);
const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

const FORM = 'application/x-www-form-urlencoded';
const FORM_BODY_LIMIT = 8 * 1024;
// The pages load nothing and post only to this origin.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.8rem 0}
input{display:block;width:100%;padding:.4rem}code{word-break:break-all;background:#f3f3f3;padding:.2rem}</style></head>
<body>${body}</body></html>
`;
}

function formPage(): string {
  const free = PLANS.find((p) => p.id === 'free');
  const limits = free ? `${free.limits.agents} tokens and ${free.limits.validations} validations a month` : 'the free plan';
  return page(
    'Sign up',
    `<h1>Create a tenant</h1>
<form method="post" action="/signup">
<label>Name <input name="name" required maxlength="200" autocomplete="organization"></label>
<label>Email (optional) <input name="email" type="email" maxlength="254" autocomplete="email"></label>
<button type="submit">Create</button>
</form>
<p>You get the free plan (${escapeHtml(limits)}), a tenant key and a token to start with.
Both are shown once: keep them somewhere safe.</p>`,
  );
}

interface Created {
  tenant: { id: string; name: string; apiKey: string };
  token: { token: string; exp: number } | undefined;
}

function createdPage(c: Created): string {
  const token = c.token
    ? `<p>Bootstrap token (<code>Authorization: Bearer …</code>), valid until ${new Date(c.token.exp * 1000).toISOString()}:</p><p><code>${escapeHtml(c.token.token)}</code></p>`
    : '<p>No bootstrap token could be issued just now; ask the operator for one.</p>';
  return page(
    'Tenant created',
    `<h1>Tenant ${escapeHtml(c.tenant.name)} created</h1>
<p>Tenant id: <code>${escapeHtml(c.tenant.id)}</code></p>
<p>Tenant key (<code>X-Suite-Tenant-Key</code>), shown only this once:</p><p><code>${escapeHtml(c.tenant.apiKey)}</code></p>
${token}`,
  );
}

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .send(html);
}

/**
 * Public signup (off unless SUITE_SIGNUP_ENABLED=true: then these routes are not registered at all,
 * and answer 404 like any unknown path). `POST /signup` takes JSON or the form's URL-encoded body
 * and creates a free tenant; the tenancy actor limits signups per client address.
 */
export function signupRoutes(bus: Bus): EdgeRoutes {
  return async (app) => {
    await app.register(async (plugin) => {
      const scope = plugin as unknown as EdgeApp;
      scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
        // An empty optional field of the form is an absent one.
        const fields = [...new URLSearchParams(body as string)].filter(([, v]) => v !== '');
        done(null, Object.fromEntries(fields));
      });

      scope.get(
        '/signup',
        {
          config: { authority: { kind: 'public' } },
          schema: { ...operation('tenancy', 'getSignupForm', 'The signup form (HTML)'), response: { 200: Html('The signup page') } },
        },
        async (_request, reply) => sendHtml(reply, 200, formPage()),
      );

      scope.post(
        '/signup',
        {
          config: { authority: { kind: 'public' } },
          schema: {
            ...operation('tenancy', 'signUp', "Create a free tenant (JSON, or the form's URL-encoded body)"),
            body: SignupBody,
            response: {
              201: {
                description: 'Created: the tenant with its key (shown this once) and a bootstrap token; as a page for the form',
                content: { 'application/json': { schema: SignupCreated }, 'text/html': { schema: Type.String() } },
              },
              ...errorsOf(503),
            },
          },
        },
        async (request, reply) => {
          const { name, email } = request.body;
          const result = await bus.request(subjects.tenancySignup, { name, ...(email !== undefined ? { email } : {}), clientIp: request.ip });
          if (!result.ok) return sendError(reply, result.error);
          if (!result.value.created) {
            const wait = result.value.retryAfterSeconds;
            return sendError(reply.header('retry-after', String(wait)), {
              code: 'RATE_LIMITED',
              message: `too many signups from this address; retry in ${wait} s`,
            });
          }
          const tenant = result.value.tenant;
          const issued = await bus.request(subjects.tokenIssue, {
            sub: `owner@${tenant.id}`,
            scope: [...SIGNUP_SCOPES],
            expiresIn: SIGNUP_TOKEN_LIFETIME,
            caller: { kind: 'admin', sub: 'signup', scope: ['*'], tenantId: tenant.id },
          });
          // The key is shown once whatever happens next: a failed token issue must not swallow it.
          if (!issued.ok) request.log.warn({ code: issued.error.code, tenantId: tenant.id }, 'signup: bootstrap token not issued');
          const token = issued.ok ? issued.value : undefined;
          reply.header('cache-control', 'no-store');
          if (request.headers['content-type']?.startsWith(FORM)) return sendHtml(reply, 201, createdPage({ tenant, token }));
          return reply.code(201).send({
            ...tenant,
            ...(token !== undefined ? { bootstrapToken: { token: token.token, jti: token.jti, exp: token.exp, scope: [...SIGNUP_SCOPES] } } : {}),
          });
        },
      );
    });
  };
}
