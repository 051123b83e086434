import { Type } from 'typebox';
import { callerOfPrincipal, defineTool, type McpTool } from '../../edge-mcp/index.ts';
import { AnomalyQuery, ListQuery, SubjectParams } from './routes.ts';
import { ArbitrateBody, EventBody, VerifyBody } from './schemas.ts';
import { trustSubjects as s } from './subjects.ts';
import * as a from './answers.ts';

/** A route's path and query as one tool's arguments, nothing else accepted. */
const SubjectArgs = Type.Object(SubjectParams.properties, { additionalProperties: false });
const SubjectListArgs = Type.Object({ ...SubjectParams.properties, ...ListQuery.properties }, { additionalProperties: false });

/**
 * The trust service's routes as MCP tools (docs/MCP.md; docs/TRUST.md): each its route's scope and
 * schema, and the bus request the route makes, with the caller as `callerOf` gives it on the route.
 * `output` is the route's 200 answer schema (answers.ts): the route sends the bus reply on as is.
 */
export function trustTools(): McpTool[] {
  return [
    defineTool({
      name: 'trust_score',
      description: 'The advisory, explained trust score of an agent (0-100): every record that moved it, and those excluded, each with its appeal link.',
      scope: 'trust:read',
      route: 'GET /score/:subjectId',
      output: a.Score,
      input: SubjectArgs,
      run: (args, caller, bus) => bus.request(s.score, { subjectId: args.subjectId, limit: 1, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'check_trust_score',
      description: 'Check whether a subject passes the trust gate (allowed: true whenever gating is disabled; advisory scores never deny).',
      scope: 'trust:read',
      route: 'POST /score/:subjectId/check',
      output: a.ScoreCheck,
      input: SubjectArgs,
      run: (args, caller, bus) => bus.request(s.check, { subjectId: args.subjectId, limit: 1, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'read_evidence',
      description:
        'The recorded facts about any subject, humans included (events with their proofs and appeals, contract breaches): facts only, no score or conclusion.',
      scope: 'trust:read',
      route: 'GET /evidence/:subjectId',
      output: a.Evidence,
      input: SubjectListArgs,
      run: (args, caller, bus) => bus.request(s.evidence, { subjectId: args.subjectId, limit: args.limit, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'record_trust_event',
      description: 'Record a fact about a subject (an event kind with its proof: an execution id, an audit entry, or a URL with its SHA-256).',
      scope: 'trust:write',
      route: 'POST /events',
      output: s.recordEvent.reply,
      input: EventBody,
      run: (args, caller, bus) => bus.request(s.recordEvent, { ...args, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'check_grounding',
      description: 'Check an output against the sources it should be grounded in; returns risk signals, not a truth verdict.',
      scope: 'trust:verify',
      route: 'POST /verify',
      output: a.Grounding,
      input: VerifyBody,
      run: (args, _caller, bus) => bus.request(s.verify, args),
    }),
    defineTool({
      name: 'arbitrate_opinions',
      description: 'Weigh the opinions of several participants on a question, discounting agreement within one model family; stores nothing.',
      scope: 'trust:arbitrate',
      route: 'POST /arbitrate',
      output: a.Arbitration,
      input: ArbitrateBody,
      run: (args, _caller, bus) => bus.request(s.arbitrate, args),
    }),
    defineTool({
      name: 'list_anomalies',
      description: 'Structural anomalies across recent agent chains: cycles, runaway depth or fan-out, stalls, disagreement.',
      scope: 'trust:read',
      route: 'GET /anomalies',
      output: a.Anomalies,
      input: AnomalyQuery,
      run: (args, caller, bus) =>
        bus.request(s.anomalies, {
          limit: args.limit,
          ...(args.kind !== undefined ? { kind: args.kind } : {}),
          caller: callerOfPrincipal(caller),
        }),
    }),
  ];
}
