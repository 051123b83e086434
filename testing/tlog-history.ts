import { CompactTree, formatCheckpoint, leafHash, signNote, type LogKey, type NodeReader } from '../core/tlog/index.ts';

/**
 * A log of `n` entries kept whole in memory (every node), with a signed checkpoint at any size:
 * entries 0..9 are shared by every history, later ones carry `prefix`, so two prefixes give two
 * forks of one history after size 10. For witness tests (unit and over HTTP).
 */
export function tlogHistory(origin: string, key: LogKey, prefix: string, n: number) {
  const tree = new CompactTree();
  const nodes = new Map<string, Buffer>();
  const roots: Buffer[] = [tree.root()];
  for (let i = 0; i < n; i += 1) {
    for (const node of tree.append(leafHash(Buffer.from(`${i < 10 ? 'common' : prefix} ${i}`)))) nodes.set(`${node.height}/${node.index}`, node.hash);
    roots.push(tree.root());
  }
  const read: NodeReader = (h, i) => nodes.get(`${h}/${i}`) as Buffer;
  const checkpoint = (size: number, by = key) => signNote(formatCheckpoint({ origin, size, root: roots[size] as Buffer, extensions: [] }), [by.signer]);
  return { read, roots, checkpoint };
}

/** A tlog-witness add-checkpoint body. */
export function addCheckpointBody(old: number, proof: readonly Buffer[], note: string): string {
  return `old ${old}\n${proof.map((p) => `${p.toString('base64')}\n`).join('')}\n${note}`;
}
