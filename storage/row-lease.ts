import { sql, type FragmentSqlToken } from 'slonik';

/**
 * A lease on one row of a work queue (a bench job, a scheduler task): the holder's column and a
 * `lease_until` timestamp on the row itself, taken with `for update skip locked`, renewed by the
 * holder, and taken back by anyone once it runs out (database clock). Fragments to put in the
 * queue's own statements, so each table keeps its queries and shares only the lease's rules.
 *
 * Not the chain writer's lease (storage/chains.ts, actors/chain-writer/lease.ts): that one is a
 * single row per chain naming the leader, with a fencing epoch that every head move checks. A
 * work row needs no epoch: the row itself is the unit of work, and the holder (with, for the
 * scheduler, the attempt number) fences the update that ends it.
 */
export interface RowLease {
  /** `set` clause: the row is the holder's until `seconds` from now. */
  take(holder: string, seconds: number | FragmentSqlToken): FragmentSqlToken;
  /** `set` clause: the holder's lease runs `seconds` more from now. */
  renew(seconds: number | FragmentSqlToken): FragmentSqlToken;
  /** `where` condition: the row is held by `holder`. */
  heldBy(holder: string): FragmentSqlToken;
  /** `where` condition: the row's lease ran out (its holder presumed dead). */
  readonly runOut: FragmentSqlToken;
  /** `set` clause: nobody holds the row. */
  readonly cleared: FragmentSqlToken;
}

/** The lease kept in `holderColumn` and `lease_until` of a work queue's rows. */
export function rowLease(holderColumn: string): RowLease {
  const holderCol = sql.identifier([holderColumn]);
  const until = (seconds: number | FragmentSqlToken) => sql.fragment`lease_until = now() + make_interval(secs => ${seconds})`;
  return {
    take: (holder, seconds) => sql.fragment`${holderCol} = ${holder}, ${until(seconds)}`,
    renew: until,
    heldBy: (holder) => sql.fragment`${holderCol} = ${holder}`,
    runOut: sql.fragment`lease_until < now()`,
    cleared: sql.fragment`${holderCol} = null, lease_until = null`,
  };
}
