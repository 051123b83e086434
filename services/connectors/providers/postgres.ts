import pg from 'pg';
import Cursor from 'pg-cursor';
import { ConnectorError, POSTGRES, type Connector, type ConnectorContext } from '../../../core/connectors/index.ts';
import { requireSetting } from './answers.ts';

interface QueryInput {
  sql: string;
  params?: (string | number | boolean | null)[];
}

const CONNECT_TIMEOUT_MS = 5_000;

/** SQLSTATE classes that mean the credentials or the role (28: invalid authorization). */
const AUTH_STATES = new Set(['28000', '28P01']);

function failureOf(err: unknown): ConnectorError {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const text = typeof e.message === 'string' ? e.message.replace(/[^\x20-\x7E]/g, '?').slice(0, 300) : 'failed';
  if (AUTH_STATES.has(code)) return new ConnectorError('credentials-rejected', `postgres refused the credentials (${code})`);
  if (code === '57014') return new ConnectorError('provider-rejected', 'postgres: the statement ran past the statement timeout (57014) and was cancelled');
  if (code === '25006') return new ConnectorError('provider-rejected', `postgres: the query tried to write; the connector only reads (25006: ${text})`);
  // A SQLSTATE of five characters is the server judging the statement; anything else is the connection.
  if (/^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57P'))
    return new ConnectorError('provider-rejected', `postgres ${code}: ${text}`);
  return new ConnectorError('provider-unavailable', 'postgres could not be reached or dropped the connection');
}

/**
 * One statement, read-only: a fresh connection per call (nothing a statement sets survives it), a
 * `READ ONLY` transaction whose snapshot is taken before the caller's statement (so it cannot turn
 * itself read-write), `statement_timeout` set inside it, the extended protocol (one statement only:
 * `select 1; delete ...` is refused by the server), at most the row cap read through a cursor, and
 * always a rollback.
 */
async function inReadOnlyTransaction<T>(ctx: ConnectorContext, work: (client: pg.Client, rowLimit: number) => Promise<T>): Promise<T> {
  const url = requireSetting(ctx.settings, 'CONNECTOR_POSTGRES_URL', 'postgres');
  const timeoutMs = Number(ctx.settings.CONNECTOR_POSTGRES_STATEMENT_TIMEOUT_MS ?? 5000);
  const rowLimit = Number(ctx.settings.CONNECTOR_POSTGRES_ROW_LIMIT ?? 1000);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'suite-connector' });
  // An error of the connection after the call ended must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('begin transaction isolation level repeatable read read only');
    await client.query("select set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
    const result = await work(client, rowLimit);
    await client.query('rollback');
    return result;
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw failureOf(err);
  } finally {
    await client.end().catch(() => {});
  }
}

export const postgresConnector: Connector = {
  manifest: POSTGRES,
  async verify(ctx) {
    await inReadOnlyTransaction(ctx, (client) => client.query('select 1'));
    return { detail: 'postgres: select 1 in a read-only transaction succeeded' };
  },
  actions: {
    async query(ctx: ConnectorContext, input: QueryInput) {
      return inReadOnlyTransaction(ctx, async (client, rowLimit) => {
        const cursor = client.query(new Cursor<Record<string, unknown>>(input.sql, input.params ?? []));
        try {
          const rows = await cursor.read(rowLimit + 1);
          const truncated = rows.length > rowLimit;
          const kept = truncated ? rows.slice(0, rowLimit) : rows;
          // Dates, buffers and the like as the JSON they become on the wire, so the hash is of what is sent.
          return { rows: JSON.parse(JSON.stringify(kept)) as unknown[], rowCount: kept.length, truncated, rowLimit };
        } finally {
          await cursor.close().catch(() => {});
        }
      });
    },
  },
};
