import { subjects } from '../../bus/index.ts';
import { TokenActor } from './tokens/index.ts';
import { TenancyActor } from './tenancy/index.ts';
import { IdentityActor } from './identities/index.ts';
import { ModelActor } from './models/index.ts';
import { RevocationActor } from './revocation/index.ts';
import { webhookSecrets } from '../../core/tenancy/index.ts';
import { aiRoutes, billingRoutes, identityRoutes, issueRoutes, modelRoutes, signupRoutes, tenantRoutes, tokenRoutes } from './routes/index.ts';
import { tokenTools } from './mcp-tools.ts';
import { defineService, type RunningPart } from '../kit/index.ts';
import { tokenConfig } from './config.ts';

/**
 * The token service (listener 8081): capability tokens, their revocation, the audit trail's reads,
 * tenancy, identities and model pins. Its tables are among the suite's own migrations. (The execution chain's routes
 * share its listener; they are the spine's, services/spine.)
 */
export const tokenService = defineService({
  name: 'token',
  config: tokenConfig,
  listener: 'token',
  actorRoles: ['actor:tokens', 'actor:revocation'],
  readiness: { 'actor:tokens': subjects.tokenValidate.subject, 'actor:revocation': subjects.revocationSnapshot.subject },
  mcpTools: tokenTools,
  async startActors(ctx) {
    const { bus, storage, audit, ring, checker, config, logger } = ctx;
    const actors: RunningPart[] = [];
    if (ctx.has('actor:revocation')) {
      // Revocations: recorded and broadcast here; every edge keeps its view (RevocationView) from them.
      const revocation = new RevocationActor({
        bus,
        storage,
        heartbeatMs: Math.max(100, Math.floor(config.revocationStalenessMs / 3)),
        logger: logger.child({ component: 'revocation' }),
      });
      revocation.start();
      actors.push({ name: 'revocation', stop: () => revocation.stop() });
    }
    if (!ctx.has('actor:tokens')) return { actors };
    if (checker === undefined) throw new Error('actor:tokens needs the process to check tokens');
    const tokens = new TokenActor({ bus, storage, ring, checker, audit, ...(config.audience !== undefined ? { audience: config.audience } : {}) });
    // Tenancy, identities and model pins belong to the token service: same role, each its own queue group.
    const tenancy = new TenancyActor({ bus, storage, audit, logger: logger.child({ component: 'tenancy' }) });
    const identities = new IdentityActor({ bus, storage, audit, logger: logger.child({ component: 'identities' }) });
    const models = new ModelActor({ bus, storage, audit });
    const producers: RunningPart[] = [];
    for (const [name, actor] of [
      ['tokens', tokens],
      ['tenancy', tenancy],
      ['identities', identities],
      ['models', models],
    ] as const) {
      actor.start();
      producers.push({ name, stop: () => actor.stop() });
    }
    return { actors, producers };
  },
  routes({ bus, config, verifier, audit }) {
    const parts = [
      tokenRoutes(bus, { verifier, audit }),
      identityRoutes(bus),
      modelRoutes(bus),
      tenantRoutes(bus),
      billingRoutes(bus, { secrets: webhookSecrets(config.billingWebhookSecret) }),
      // Signup off: its routes do not exist (404), rather than answering that they are disabled.
      ...(config.signupEnabled ? [signupRoutes(bus)] : []),
      issueRoutes(bus),
      aiRoutes(config.llm),
    ];
    return async (app) => {
      for (const register of parts) await register(app);
    };
  },
});

export { RevocationView } from './revocation/index.ts';
