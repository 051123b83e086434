import type { Static } from 'typebox';
import { SuiteError, subjects } from '../../bus/index.ts';
import { disagreementOf, findingsOnInsert, isStalled, placeOf } from '../../core/trust/index.ts';
import type { TrustDeps } from './context.ts';
import { tenantColumn, tenantOf } from './context.ts';
import { newId } from './queries/common.ts';
import {
  addChild,
  anomaliesOfChain,
  chainTenant,
  getChain,
  getInteraction,
  insertChain,
  insertInteraction,
  insertObservation,
  interactionsOfChain,
  lastInteractions,
  linkExecution,
  linkExecutions,
  linksOf,
  listAnomalies,
  listChains,
  observationsOf,
  stalledChains,
  touchChain,
  upsertAnomaly,
} from './queries/interactions.ts';
import type { req } from './schemas.ts';

/** Agent-to-agent interactions, observers' opinions, chains and their anomalies (docs/TRUST.md, "Chains"). */

export async function record(deps: TrustDeps, request: Static<typeof req.interaction>) {
  const r = { ...request.interaction, caller: request.caller, agent: request.interaction.caller };
  const tenant = tenantOf(r.caller);
  const interaction = await deps.storage.pool.transaction(async (tx) => {
    const parent = r.parentId === undefined ? null : await getInteraction(tx, r.parentId, tenant, true);
    if (r.parentId !== undefined && parent === null) throw new SuiteError('INVALID_REQUEST', `/parentId: no interaction ${r.parentId}`);
    if (parent !== null && r.chainId !== undefined && r.chainId !== parent.chainId) {
      throw new SuiteError('INVALID_REQUEST', `/chainId: the parent ${parent.id} belongs to chain ${parent.chainId}, not ${r.chainId}`);
    }
    const chainId = parent?.chainId ?? r.chainId ?? newId('chn');
    // Locking the chain's row serialises the interactions of one chain, so its counters stay exact.
    const owner = await chainTenant(tx, chainId);
    if (owner === undefined) await insertChain(tx, { id: chainId, tenantId: tenantColumn(r.caller), outcome: r.outcome });
    else if (tenant !== undefined && owner !== tenant) throw new SuiteError('CONFLICT', `/chainId: chain id ${chainId} is taken; choose another`);
    const place = placeOf({ id: '', chainId, parentId: r.parentId ?? null, caller: r.agent, callee: r.callee }, parent);
    const children = parent === null ? 0 : await addChild(tx, parent.id);
    const stored = await insertInteraction(tx, {
      tenantId: tenantColumn(r.caller),
      chainId,
      parentId: parent?.id ?? null,
      caller: r.agent,
      callee: r.callee,
      outcome: r.outcome,
      executionId: r.executionId ?? null,
      depth: place.depth,
      path: place.path,
      recordedBy: r.caller.sub,
    });
    await touchChain(tx, { id: chainId, outcome: r.outcome, depth: place.depth });
    for (const f of findingsOnInsert(stored, place, children, deps.settings)) {
      await upsertAnomaly(tx, { ...f, chainId, tenantId: tenantColumn(r.caller), records: [stored.id, ...(parent === null ? [] : [parent.id])] });
    }
    return stored;
  });
  if (interaction.executionId !== null) {
    // The trace may already be on the chain (recorded before the interaction): link it now; later ones link on `appended`.
    const found = await deps.bus.request(subjects.executionsGet, { id: interaction.executionId });
    if (found.ok) await linkExecution(deps.storage.pool, interaction.executionId, found.value.record.outcome);
  }
  return interaction;
}

export async function observe(deps: TrustDeps, r: Static<typeof req.observe>) {
  const tenant = tenantOf(r.caller);
  return deps.storage.pool.transaction(async (tx) => {
    const interaction = await getInteraction(tx, r.interactionId, tenant, true);
    if (interaction === null) throw new SuiteError('NOT_FOUND', `no interaction ${r.interactionId}`);
    const observation = await insertObservation(tx, {
      interactionId: interaction.id,
      tenantId: tenantColumn(r.caller),
      observer: r.observer,
      outcome: r.outcome,
      note: r.note ?? null,
    });
    const all = await observationsOf(tx, [interaction.id]);
    const finding = disagreementOf(interaction.id, all);
    if (finding !== null) {
      await upsertAnomaly(tx, {
        ...finding,
        chainId: interaction.chainId,
        tenantId: tenantColumn(r.caller),
        records: [interaction.id, ...all.map((o) => o.id)],
      });
    }
    return observation;
  });
}

export async function chains(deps: TrustDeps, r: Static<typeof req.list>) {
  return { chains: await listChains(deps.storage.pool, tenantOf(r.caller), r.limit) };
}

export async function chain(deps: TrustDeps, r: Static<typeof req.id>) {
  const { pool } = deps.storage;
  const found = await getChain(pool, r.id, tenantOf(r.caller));
  if (found === null) throw new SuiteError('NOT_FOUND', `no chain ${r.id}`);
  const interactions = await interactionsOfChain(pool, found.id, 1000);
  const ids = interactions.map((i) => i.id);
  return {
    ...found,
    stalled: isStalled({ lastOutcome: found.lastOutcome, lastActivityMs: Date.parse(found.lastActivityAt) }, deps.now(), deps.settings),
    interactions,
    observations: await observationsOf(pool, ids),
    executions: await linksOf(pool, ids),
    anomalies: await anomaliesOfChain(pool, found.id),
  };
}

/** Anomalies found as interactions and observations arrived, and the chains stalled now. */
export async function anomalies(deps: TrustDeps, r: Static<typeof req.anomalies>) {
  const { pool } = deps.storage;
  const tenant = tenantOf(r.caller);
  const now = deps.now();
  const wantStalls = r.kind === undefined || r.kind === 'stall';
  // Two independent reads: on Postgres they run on two connections at once.
  const [stalled, found] = await Promise.all([
    wantStalls ? stalledChains(pool, tenant, new Date(now - deps.settings.stallMs), r.limit) : Promise.resolve([]),
    r.kind === 'stall' ? Promise.resolve([]) : listAnomalies(pool, tenant, r.limit, r.kind),
  ]);
  const waitingOn = await lastInteractions(
    pool,
    stalled.map((c) => c.id),
  );
  const stalls = stalled.map((c) => ({
    kind: 'stall',
    key: `stall:${c.id}`,
    chainId: c.id,
    detail: `chain ${c.id} has waited on a pending interaction since ${c.lastActivityAt}, longer than ${deps.settings.stallMs} ms`,
    records: waitingOn.filter((i) => i.chainId === c.id).map((i) => i.id),
    detectedAt: new Date(now).toISOString(),
    updatedAt: c.lastActivityAt,
  }));
  return {
    anomalies: [...stalls, ...found].slice(0, r.limit),
    bounds: { maxDepth: deps.settings.maxDepth, maxFanOut: deps.settings.maxFanOut, stallMs: deps.settings.stallMs },
  };
}

/** `trace appended`: an execution some interaction named is now on the chain. */
/** Executions appended to the chain, gathered by the actor (actor.ts), linked to the interactions that named them. */
export async function appended(deps: TrustDeps, executions: ReadonlyArray<{ id: string; outcome: string }>): Promise<void> {
  await linkExecutions(deps.storage.pool, executions);
}
