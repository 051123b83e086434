/**
 * Which non-public addresses outbound calls (scheduler tasks, benchmark targets, connectors) may
 * reach. Public addresses are always reachable; this names the exceptions. A value, built once from
 * configuration, so a test or `/runtime/health` can say exactly what is in force.
 */
export type OutboundPolicySource = 'embedded-default' | 'distributed-default' | 'production-default' | 'SUITE_OUTBOUND_ALLOW';

export interface OutboundPolicy {
  /** Where the allow-list came from. */
  readonly source: OutboundPolicySource;
  /** Addresses and CIDR ranges that may be reached although they are not public. */
  readonly allow: readonly string[];
}

export const LOOPBACK_RANGES: readonly string[] = Object.freeze(['127.0.0.0/8', '::1/128']);

/**
 * The policy in force. An explicit allow-list (`SUITE_OUTBOUND_ALLOW`) always wins. Otherwise the
 * embedded mode (one machine, a person's own install, where a local service or a local Ollama is the
 * usual target) allows loopback; the distributed mode and `NODE_ENV=production` allow nothing private:
 * there the scheduler runs beside other people's services and a metadata endpoint.
 */
export function outboundPolicy(input: {
  readonly allowList: readonly string[] | undefined;
  readonly distributed: boolean;
  readonly production: boolean;
}): OutboundPolicy {
  if (input.allowList !== undefined) return Object.freeze({ source: 'SUITE_OUTBOUND_ALLOW', allow: Object.freeze([...input.allowList]) });
  if (input.production) return Object.freeze({ source: 'production-default', allow: Object.freeze([]) });
  if (input.distributed) return Object.freeze({ source: 'distributed-default', allow: Object.freeze([]) });
  return Object.freeze({ source: 'embedded-default', allow: LOOPBACK_RANGES });
}
