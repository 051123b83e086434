/**
 * Outbound HTTP for every service that calls out (scheduler tasks, benchmark targets, connectors):
 * the SSRF guard (an undici dispatcher that resolves, checks and pins each address, redirects
 * included) and the policy value that says which non-public addresses it allows.
 */
export { createOutboundGuard, OutboundRefusedError, type OutboundGuard, type Resolver } from './guard.ts';
export { outboundPolicy } from './policy.ts';
export { guardedRequest } from './request.ts';
