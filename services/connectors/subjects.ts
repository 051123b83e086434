import { Type, type Static } from 'typebox';
import { AttestationSchema, ExecutionRecordSchema, requestSubject } from '../../bus/index.ts';

/**
 * The connector service's bus subjects (`suite.connectors.<verb>`), served by the connectors actor
 * (queue `connectors`). Connector ids and action names are checked by the actor against its registry.
 */

const ConnectorId = Type.String({ pattern: '^[a-z][a-z0-9-]{0,39}$' });
const ActionName = Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' });

const VariableState = Type.Object({
  name: Type.String(),
  description: Type.String(),
  secret: Type.Boolean(),
  required: Type.Boolean(),
  set: Type.Boolean(),
  default: Type.Optional(Type.String()),
});

const ActionSummary = Type.Object({
  name: Type.String(),
  description: Type.String(),
  effect: Type.Union([Type.Literal('read'), Type.Literal('write')]),
  /** The action's input as JSON Schema. */
  input: Type.Unknown(),
});

/** One connector as GET /connectors/{id} shows it: what it needs and offers, never a secret's value. */
export const ConnectorSummarySchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  configured: Type.Boolean(),
  missing: Type.Array(Type.String()),
  variables: Type.Array(VariableState),
  verifies: Type.String(),
  actions: Type.Array(ActionSummary),
});
export type ConnectorSummary = Static<typeof ConnectorSummarySchema>;

export const VerifyReply = Type.Object({ id: Type.String(), valid: Type.Literal(true), detail: Type.String() });

export const ActRequest = Type.Object({
  id: ConnectorId,
  action: ActionName,
  /** Checked by the actor against the action's own schema. */
  input: Type.Unknown(),
  /** Who asks, as the edge's capability check established it; the trace's subject is its `sub`. */
  attested: AttestationSchema,
  /** When the edge accepted the call. */
  timestamp: Type.String({ format: 'date-time' }),
});

export const ActReply = Type.Object({
  id: Type.String(),
  action: Type.String(),
  output: Type.Unknown(),
  /** The signed execution record of this action (input and output as their hashes). */
  execution: ExecutionRecordSchema,
});

export const connectorSubjects = {
  list: requestSubject('suite.connectors.list', Type.Object({}), Type.Object({ connectors: Type.Array(ConnectorSummarySchema) })),
  get: requestSubject('suite.connectors.get', Type.Object({ id: Type.String({ maxLength: 64 }) }), ConnectorSummarySchema),
  verify: requestSubject('suite.connectors.verify', Type.Object({ id: Type.String({ maxLength: 64 }) }), VerifyReply),
  act: requestSubject('suite.connectors.act', ActRequest, ActReply),
};
