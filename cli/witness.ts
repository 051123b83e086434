/**
 * `suite witness`: a C2SP tlog-witness for the suite's execution log (or any tlog), apart from the
 * suite (docs/WITNESS.md). Reads no suite configuration: a witness has its own folder, key and port.
 * It prints its URL and vkey on standard output once listening, then runs until SIGTERM or SIGINT.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { createLogger } from '../observability/index.ts';
import { startWitness } from '../witness/src/index.ts';
import { UsageError } from './usage.ts';

export const WITNESS_USAGE = `  suite witness --data-dir DIR --name NAME --log VKEY [--log VKEY ...] [--host H] [--port N] [--key PEM]
                                    a tlog witness of the logs named by their vkeys (docs/WITNESS.md)`;

const DEFAULT_PORT = 8086;

interface Streams {
  stdout: { write(text: string): unknown };
}

export async function witnessCommand(argv: string[], io: Streams, signal: AbortSignal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        'data-dir': { type: 'string' },
        name: { type: 'string' },
        log: { type: 'string', multiple: true },
        host: { type: 'string' },
        port: { type: 'string' },
        key: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError(`witness: ${(err as Error).message}`);
  }
  if (values['data-dir'] === undefined) throw new UsageError('witness: --data-dir DIR is required (its state, evidence and key live there)');
  if (values.name === undefined) throw new UsageError('witness: --name NAME is required (the key name verifiers know it by, e.g. witness.example/w1)');
  if (!values.log || values.log.length === 0) throw new UsageError('witness: at least one --log VKEY (GET /executions/log/vkey of the suite)');
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d{1,5}$/.test(values.port ?? '0') || port > 65535) throw new UsageError(`witness: --port ${values.port}: a port number (0 for any free one)`);
  const logger = createLogger({ level: 'info', service: 'suite-witness', format: 'json', destination: process.stderr });
  let witness;
  try {
    witness = await startWitness({
      dataDir: resolve(values['data-dir']),
      name: values.name,
      logVkeys: values.log,
      host: values.host ?? '127.0.0.1',
      port,
      logger,
      ...(values.key !== undefined ? { keyFile: resolve(values.key) } : {}),
    });
  } catch (err) {
    if (err instanceof TypeError) throw new UsageError(`witness: ${err.message}`);
    throw err;
  }
  io.stdout.write(`witness listening on ${witness.url}\nwitness vkey ${witness.vkey}\n`);
  if (signal.aborted) {
    await witness.stop();
    return 0;
  }
  await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
  await witness.stop();
  return 0;
}
