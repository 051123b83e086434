import { subjects } from '../../bus/index.ts';
import { TokenActor } from '../../actors/tokens/index.ts';
import { TenancyActor } from '../../actors/tenancy/index.ts';
import { IdentityActor } from '../../actors/identities/index.ts';
import { ModelActor } from '../../actors/models/index.ts';
import { webhookSecrets } from '../../core/tenancy/index.ts';
import {
  aiRoutes, billingRoutes, identityRoutes, issueRoutes, modelRoutes, signupRoutes, tenantRoutes, tokenRoutes,
} from './routes/index.ts';
import { tokenTools } from './mcp-tools.ts';
import { defineService, type RunningPart } from '../kit/index.ts';

/**
 * The token service (listener 8081): capability tokens, the audit trail's reads, tenancy, identities
 * and model pins. Its tables are among the suite's own migrations. (The execution chain's routes
 * share its listener; they are the spine's, services/spine.)
 */
export const tokenService = defineService({
  name: 'token',
  listener: 'token',
  actorRoles: ['actor:tokens'],
  readiness: { 'actor:tokens': subjects.tokenValidate.subject },
  mcpTools: tokenTools,
  async startActors(ctx) {
    if (!ctx.has('actor:tokens')) return {};
    const { bus, storage, audit, ring, checker, config, logger } = ctx;
    if (checker === undefined) throw new Error('actor:tokens needs the process to check tokens');
    const tokens = new TokenActor({ bus, storage, ring, checker, audit, ...(config.audience !== undefined ? { audience: config.audience } : {}) });
    // Tenancy, identities and model pins belong to the token service: same role, each its own queue group.
    const tenancy = new TenancyActor({ bus, storage, audit, logger: logger.child({ component: 'tenancy' }) });
    const identities = new IdentityActor({ bus, storage, audit, logger: logger.child({ component: 'identities' }) });
    const models = new ModelActor({ bus, storage, audit });
    const producers: RunningPart[] = [];
    for (const [name, actor] of [['tokens', tokens], ['tenancy', tenancy], ['identities', identities], ['models', models]] as const) {
      actor.start();
      producers.push({ name, stop: () => actor.stop() });
    }
    return { producers };
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
