import type { Bus, Subscription } from '../../bus/index.ts';
import { subjects } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import { auditPageAfter, listAuditEntries, prunedAuditBetween, readChainHead } from '../../storage/index.ts';
import { AuditChainVerifier, type AuditRecord } from '../../core/chain/index.ts';
import { BusActor } from '../base/index.ts';

const PAGE = 2000;

/** Reads of the audit chain: listing (any replica) and streaming verification in constant memory. */
export class AuditReaderActor extends BusActor {
  readonly #bus: Bus;
  readonly #storage: Storage;

  constructor(o: { bus: Bus; storage: Storage }) {
    super();
    this.#bus = o.bus;
    this.#storage = o.storage;
  }

  protected subscriptions(): Subscription[] {
    return [
      this.#bus.serve(
        subjects.auditList,
        async ({ data }) => {
          const { entries, total } = await listAuditEntries(this.#storage.pool, data);
          return { ok: true, value: { entries: entries.map(toEntry), total } };
        },
        { queue: 'audit' },
      ),
      this.#bus.serve(subjects.auditVerify, async () => ({ ok: true, value: await verifyAuditChain(this.#storage) }), { queue: 'audit' }),
    ];
  }
}

/**
 * Verify the whole audit chain, one page at a time, against the recorded head. Entries pruned under
 * retention are taken where they stood, as their tombstones keep them (links checked, content gone).
 */
export async function verifyAuditChain(storage: Storage) {
  // Read the head first: records appended while we verify lie beyond it and are not judged.
  const head = await readChainHead(storage.pool, 'audit');
  const verifier = new AuditChainVerifier();
  const limit = head?.seq ?? 0;
  let after = 0;
  while (after < limit) {
    const want = Math.min(PAGE, limit - after);
    const page = await auditPageAfter(storage.pool, after, want);
    // The page covers seqs up to its last entry (to the head when it came short): the tombstones among them join it.
    const end = page.length < want ? limit : (page[page.length - 1] as AuditRecord).seq;
    const pruned = (await prunedAuditBetween(storage.pool, after + 1, end)).map((p) => ({ pruned: true as const, ...p }));
    const all = pruned.length === 0 ? page : [...page, ...pruned].sort((a, b) => a.seq - b.seq);
    if (all.length === 0) break;
    for (const r of all) if (!verifier.push(r)) return verifier.finish();
    after = end;
  }
  return verifier.finish(head ? { seq: head.seq, hash: head.hash } : undefined);
}

function toEntry(r: AuditRecord) {
  const { tenantId, ...rest } = r;
  return tenantId === null ? rest : { ...rest, tenantId };
}
