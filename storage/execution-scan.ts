import pg from 'pg';
import type { CommonQueryMethods } from 'slonik';
import type { ExecutionRecord, PrunedExecution } from '../core/chain/index.ts';

/**
 * Reads of the execution chain for whole-chain verification (services/spine/executions/verify.ts): every
 * signed column of every record, by ranges of `seq`, in a form that costs the reading thread next
 * to nothing. executionsPageAfter (storage/executions.ts) makes a typed object per row on the
 * thread that reads (pg's parsers and the row schema: ~6 µs a record, a third of what verification
 * may spend besides the signature check); here the rows are handed over whole:
 *
 * - `executionsRangeJson`: a text of JSON, one array per record and line, built by the database.
 *   The main thread passes it untouched to a verification thread, which parses it line by line
 *   (`jsonRows`). The only way on PGlite, whose one session belongs to the main thread's pool.
 * - `scanExecutionRange`: on Postgres, a verification thread's own connection reads its ranges as
 *   arrays of raw column text (no JSON built by the database: ~4 µs a record less of its CPU),
 *   handed over row by row as they arrive.
 *
 * Both give each row as the same array of column values (in the order `scannedExecution` reads
 * them), which `scannedExecution` makes a record; a row is garbage as soon as it is judged. What is
 * hashed is rebuilt from every stored column, exactly as from executionsPageAfter: jsonb arrives as
 * its own text (json_build_array embeds it) and is JSON.parse'd as the pool's type parser does, so
 * numbers read back as the same doubles; `scope` arrives as JSON, the rest as text. Values are not
 * checked here: a row edited into another shape must reach the verifier and be reported ("content
 * does not match its hash"), not fail a schema.
 */

/** A scanned row: the columns' values as JSON values. */
export type ScannedRow = readonly unknown[];

/**
 * Every published key id: a verification loads them all before it starts rather than as records
 * name them, so that its threads are not sent their first jobs without the key.
 */
export async function traceKeyIds(db: CommonQueryMethods): Promise<readonly string[]> {
  return (await mainThreadQueries()).keyIds(db);
}

/**
 * Records `from` to `to` (inclusive) in seq order, as one text of a JSON array per record and
 * line (JSON text holds no raw line break: strings escape them, and json_build_array and jsonb's
 * text put none between values); '' when there are none.
 *
 * One text for the range (~375 KB for 500 records: a large object of the main thread's heap, freed
 * at its next mark-compact) rather than texts of a few records each (young-generation strings):
 * under this allocation rate V8 then at times grew the main thread's young generation to 128 MB.
 * Verifying 100,000 records on PGlite (bench/executions.ts): one text per range, 299–304 MB of
 * peak resident memory at 16.3–17.0k records/s in three runs; texts of 16 records, 404 MB at
 * 19.0–20.3k/s in two (the marking of the main heap costs that much CPU). A process started with
 * a capped young generation (node --max-semi-space-size=4) had both: 259 MB at 18.7k/s.
 */
export async function executionsRangeJson(db: CommonQueryMethods, from: number, to: number): Promise<string> {
  return (await mainThreadQueries()).rangeJson(db, from, to);
}

interface MainThreadQueries {
  keyIds(db: CommonQueryMethods): Promise<readonly string[]>;
  rangeJson(db: CommonQueryMethods, from: number, to: number): Promise<string>;
}

let loaded: Promise<MainThreadQueries> | undefined;

/**
 * slonik and the row schemas are loaded on first use, not with this module: verification threads
 * load it for scanExecutionRange, and slonik and typebox would add ~11 MB to each one's heap (which
 * then sits close to its cap and is marked and compacted over and over).
 */
function mainThreadQueries(): Promise<MainThreadQueries> {
  loaded ??= (async () => {
    const [{ sql }, { Type }, { rowSchema }] = await Promise.all([import('slonik'), import('typebox'), import('./row-schema.ts')]);
    const KeyIdRow = rowSchema(Type.Object({ key_id: Type.String() }));
    const PageRow = rowSchema(Type.Object({ page: Type.String() }));
    return {
      keyIds: (db) => db.anyFirst(sql.type(KeyIdRow)`select key_id from trace_keys order by key_id`),
      rangeJson: (db, from, to) =>
        db.oneFirst(sql.type(PageRow)`
        select coalesce(string_agg(row, E'\n' order by seq), '') as page from (
          select seq, json_build_array(seq, id, ts, subject, scope, module, action, outcome, input_hash,
            output_hash, cost, governance, attested, prev_hash, key_id, hash, signature)::text as row
          from executions where seq between ${from} and ${to}
          union all
          select seq, json_build_array(seq, id, null, null, null, null, null, null, null, null, null, null, null, prev_hash,
            key_id, hash, signature, true)::text from execution_log_pruned where seq between ${from} and ${to}) rows`),
    };
  })();
  return loaded;
}

/** The rows of a text from executionsRangeJson, in order, each parsed when reached. */
export function* jsonRows(text: string): Generator<ScannedRow> {
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    const stop = end < 0 ? text.length : end;
    yield JSON.parse(text.slice(at, stop)) as ScannedRow;
    at = stop + 1;
  }
}

/**
 * A connection of its own for a verification thread (Postgres only); close it with `end()`. The
 * same time limits as the suite's pool (storage/open.ts), so that a stuck database fails the
 * verification rather than hanging it.
 */
export async function openScanClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'suite-chain-scan',
    connectionTimeoutMillis: 5_000,
    statement_timeout: 30_000,
  });
  // An idle connection that dies emits 'error'; unhandled, it would end the thread. The next
  // query on it fails and says why.
  client.on('error', () => {});
  await client.connect();
  return client;
}

// Every column as the text Postgres sends: no parser runs but those of fromText.
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * Records `from` to `to` (inclusive) in seq order, read on a scan connection and given to `onRow`
 * as they arrive (none is kept); resolves once the query is done.
 */
export function scanExecutionRange(client: pg.Client, from: number, to: number, onRow: (row: ScannedRow) => void): Promise<void> {
  const config: pg.QueryArrayConfig = {
    // Named: parsed and planned once per connection.
    name: 'suite-execution-scan',
    text: `select seq, id, ts, subject, to_json(scope)::text, module, action, outcome, input_hash, output_hash, cost::text,
      governance::text, attested::text, prev_hash, key_id, hash, signature, false from executions where seq between $1 and $2
      union all
      select seq, id, null, null, null, null, null, null, null, null, null, null, null, prev_hash, key_id, hash, signature, true
      from execution_log_pruned where seq between $1 and $2 order by seq`,
    values: [from, to],
    rowMode: 'array',
    types: RAW_TEXT,
  };
  const query = new pg.Query(config);
  return new Promise((resolve, reject) => {
    // With a 'row' listener and no callback, pg does not collect the rows.
    query.on('row', (row: (string | null)[]) => onRow(fromText(row)));
    query.on('end', () => resolve());
    query.on('error', reject);
    client.query(query);
  });
}

// seq is int8 within the range asked for, so a safe integer; scope and the jsonb columns are JSON
// text (SQL NULL stays null, as the pool's parsers leave it).
const fromText = (a: (string | null)[]): ScannedRow => [
  Number(a[0]),
  a[1],
  a[2],
  a[3],
  parsed(a[4]),
  a[5],
  a[6],
  a[7],
  a[8],
  a[9],
  parsed(a[10]),
  parsed(a[11]),
  parsed(a[12]),
  a[13],
  a[14],
  a[15],
  a[16],
  a[17] === 't',
];

const parsed = (text: string | null | undefined): unknown => (text == null ? null : JSON.parse(text));

/**
 * A scanned row as the record it holds (unchecked: see above), or the tombstone of a record pruned
 * under retention (migration 012): the scans give one as a row whose 18th value is true and whose
 * content columns are null, so verification and exports take it where the record stood.
 */
export function scannedExecution(a: ScannedRow): ExecutionRecord | PrunedExecution {
  if (a[17] === true) return { pruned: true, seq: a[0], id: a[1], prevHash: a[13], keyId: a[14], hash: a[15], signature: a[16] } as PrunedExecution;
  return {
    seq: a[0],
    id: a[1],
    timestamp: a[2],
    subject: a[3],
    scope: a[4],
    module: a[5],
    action: a[6],
    outcome: a[7],
    inputHash: a[8],
    outputHash: a[9],
    cost: a[10],
    governance: a[11],
    attested: a[12],
    prevHash: a[13],
    keyId: a[14],
    hash: a[15],
    signature: a[16],
  } as ExecutionRecord;
}
