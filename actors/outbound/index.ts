/**
 * Outbound HTTP for every service that calls out (scheduler tasks, benchmark targets, connectors):
 * the SSRF guard (an undici dispatcher that resolves, checks and pins each address, redirects
 * included) and the policy value that says which non-public addresses it allows.
 */
export { createOutboundGuard, OutboundRefusedError, type OutboundGuard, type OutboundGuardOptions, type Resolver } from './guard.ts';
export { outboundPolicy, LOOPBACK_RANGES, type OutboundPolicy, type OutboundPolicySource } from './policy.ts';
export { nonPublicReason } from './address-rules.ts';
export { guardedRequest, type OutboundRequest, type OutboundResponse } from './request.ts';
