import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../bus/index.ts';
import { scopeGrants } from '../core/capability/index.ts';
import { errorBody, type AuditSink } from '../edge-http/index.ts';
import type { McpTool } from './tool.ts';
import type { McpVerified } from './authorize.ts';
import type { McpMetrics } from './metrics.ts';

/**
 * `/mcp` as an OAuth protected resource (RFC 9728, the MCP authorization specification): a request with
 * no credential or a bad one answers 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, so that
 * a client that knows nothing but the URL finds the authorization server; a token issued for another
 * resource (RFC 8707 `aud`) is refused (no token passthrough); a `tools/call` of a tool whose scope the
 * token lacks answers 403 `insufficient_scope` naming the scope (RFC 6750 §3.1, step-up).
 */
export interface ProtectedResource {
  /** This resource's identifier and its metadata URL, as this request reached them. */
  of(request: FastifyRequest): { resource: string; metadataUrl: string; audiences: readonly string[] };
}

type Refusal = { status: 401 | 403; challenge: string; code: string; message: string };

/** The HTTP-level decision on one POST /mcp: undefined to go on to the MCP layer. */
export async function protectedResourceCheck(
  pr: ProtectedResource,
  request: FastifyRequest,
  who: McpVerified,
  tools: readonly McpTool[],
  audit: AuditSink,
  metrics?: McpMetrics,
): Promise<Refusal | undefined> {
  const { resource, metadataUrl, audiences } = pr.of(request);
  const meta = `resource_metadata="${metadataUrl}"`;
  const hasCredential = request.headers.authorization !== undefined;
  const deny = (subject: string, code: string, message: string, status: 401 | 403, challenge: string, tenantId?: string): Refusal => {
    audit.record({
      subject,
      action: 'mcp:connect',
      resource: 'mcp',
      result: 'deny',
      reason: `${code}: ${message}`.slice(0, 1024),
      ...(tenantId !== undefined ? { tenantId } : {}),
    });
    return { status, challenge, code, message };
  };
  if (!who.ok) {
    const challenge = hasCredential ? `Bearer ${meta}, error="invalid_token", error_description="${quoteSafe(who.error.message)}"` : `Bearer ${meta}`;
    // A refusal the suite cannot decide (revocation view stale, audit stalled) is not the client's fault: 503, as every edge.
    if (who.error.code === 'REVOCATION_UNAVAILABLE' || who.error.code === 'SERVICE_UNAVAILABLE') return undefined;
    return deny('anonymous', who.error.code, who.error.message, 401, challenge);
  }
  const p = who.principal;
  if (p.aud !== undefined && !audiences.includes(p.aud)) {
    return deny(
      p.sub ?? 'anonymous',
      'TOKEN_AUDIENCE_MISMATCH',
      `the token was issued for another resource than ${resource}`,
      401,
      `Bearer ${meta}, error="invalid_token", error_description="the token is for another resource"`,
      p.tenantId,
    );
  }
  const needed = scopeNeeded(request.body, tools);
  if (needed !== undefined && !scopeGrants(p.scope, needed.scope)) {
    // Audited and counted as the MCP layer's own refusal of the call (edge-mcp/authorize.ts).
    audit.record({
      subject: p.sub ?? 'anonymous',
      action: needed.scope,
      resource: `mcp tools/call ${needed.name}`,
      result: 'deny',
      reason: `CAPABILITY_INSUFFICIENT: the token does not grant ${needed.scope}`,
      ...(p.tenantId !== undefined ? { tenantId: p.tenantId } : {}),
    });
    metrics?.call(needed.name, 'refused');
    return {
      status: 403,
      code: 'CAPABILITY_INSUFFICIENT',
      message: `CAPABILITY_INSUFFICIENT: the token does not grant ${needed.scope}`,
      challenge: `Bearer ${meta}, error="insufficient_scope", scope="${needed.scope}", error_description="the token does not grant ${needed.scope}"`,
    };
  }
  return undefined;
}

/** The scope a single `tools/call` of one of the suite's own tools needs; undefined for anything else (batches, upstream tools). */
function scopeNeeded(body: unknown, tools: readonly McpTool[]): McpTool | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const m = body as { method?: unknown; params?: { name?: unknown } };
  if (m.method !== 'tools/call' || typeof m.params?.name !== 'string') return undefined;
  return tools.find((t) => t.name === m.params?.name);
}

function quoteSafe(text: string): string {
  return text.replace(/["\\]/g, "'").slice(0, 200);
}

export function sendRefusal(reply: FastifyReply, r: Refusal): FastifyReply {
  return reply
    .code(r.status)
    .header('www-authenticate', r.challenge)
    .send(errorBody(r.code as ErrorCode, r.message));
}
