import { createHash } from 'node:crypto';
import { availableParallelism, cpus, hostname, totalmem } from 'node:os';

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  platform: string;
  hostname: string;
  totalMemoryBytes: number;
}

/** The machine a run measured from, stored with every run. */
export function thisMachine(): Machine {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    hostname: hostname(),
    totalMemoryBytes: totalmem(),
  };
}

/** Runs on "the same machine" share this key: the host, its CPU and core count, and the Node version. */
export function machineKey(m: Machine): string {
  return createHash('sha256')
    .update(JSON.stringify([m.hostname, m.cpuModel, m.cores, m.node, m.platform]))
    .digest('hex')
    .slice(0, 32);
}
