import { sql, type CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { rowSchema } from '../../storage/index.ts';

/** One token-endpoint outcome as `GET /oauth/grants` shows it (the dashboard's recent grants). */
export const GrantLogEntrySchema = Type.Object({
  at: Type.String({ description: 'When it was decided (ISO 8601)' }),
  grantType: Type.String(),
  clientId: Type.String({ description: 'The client that asked (anonymous when none could be named)' }),
  sub: Type.String({ description: "The issued token's subject; for a refusal, the client that asked" }),
  outcome: Type.Union([Type.Literal('granted'), Type.Literal('refused')]),
  error: Type.Optional(Type.String({ description: 'The RFC 6749 error code of a refusal' })),
  scope: Type.Array(Type.String(), { description: "Granted: the token's scope; refused: what was asked" }),
});
export type GrantLogEntry = Static<typeof GrantLogEntrySchema>;

export interface GrantLogRow {
  grantType: string;
  clientId: string;
  sub: string;
  outcome: 'granted' | 'refused';
  error?: string;
  scope: readonly string[];
  tenantId: string | null;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);
const KEEP_DAYS = 30;

export async function insertGrantLog(db: CommonQueryMethods, row: GrantLogRow): Promise<void> {
  const scope = row.scope.slice(0, 100).map((s) => clip(s, 200));
  await db.query(sql.unsafe`insert into oauth_grant_log (grant_type, client_id, sub, outcome, error, scope, tenant_id)
    values (${clip(row.grantType, 100)}, ${clip(row.clientId, 256)}, ${clip(row.sub, 512)}, ${row.outcome}, ${row.error ?? null},
      ${sql.array(scope, 'text')}, ${row.tenantId})`);
}

const Row = rowSchema(
  Type.Object({
    at: Type.String(),
    grantType: Type.String(),
    clientId: Type.String(),
    sub: Type.String(),
    outcome: Type.Union([Type.Literal('granted'), Type.Literal('refused')]),
    error: Type.Union([Type.String(), Type.Null()]),
    scope: Type.Array(Type.String()),
  }),
);

/** Newest first; a tenant's caller sees its tenant's rows only (as the client list). */
export async function listGrantLog(db: CommonQueryMethods, limit: number, tenantId: string | undefined): Promise<GrantLogEntry[]> {
  const rows = await db.any(sql.type(Row)`select to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
      grant_type as "grantType", client_id as "clientId", sub, outcome, error, scope
    from oauth_grant_log g ${tenantId === undefined ? sql.fragment`` : sql.fragment`where tenant_id = ${tenantId}`}
    order by g.at desc, g.id desc limit ${limit}`);
  return rows.map(({ error, ...r }) => ({ ...r, ...(error !== null ? { error } : {}) }));
}

export async function pruneGrantLog(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.unsafe`delete from oauth_grant_log where at < now() - make_interval(days => ${KEEP_DAYS})`);
  return result.rowCount;
}
