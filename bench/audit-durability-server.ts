/**
 * The embedded suite for bench/audit-durability.ts: `start` on a data folder, in one process, with
 * a switch for the audit mode, flipped by SIGUSR2 and announced on stdout:
 *
 *   durable      the release's behaviour: an answered decision waits for its audit entry's commit
 *   unawaited    the earlier behaviour: the answer leaves at once, the entry is committed later
 *
 * (the switch replaces the sink's `durable()` barrier with an already-resolved one). Bench only.
 */
import { ensureStoredSecrets } from '../config/index.ts';
import { loadConfig } from '../services/index.ts';
import { parseRoles, startSuite } from '../cli/index.ts';
import { createLogger } from '../observability/index.ts';

const [dataDir, journal = 'journal'] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: node bench/audit-durability-server.ts DATA_DIR [journal|no-journal]');
const { secrets } = await ensureStoredSecrets(dataDir);
// Without SUITE_DATA_DIR (the database folder and secrets given directly) the sink keeps no
// journal: a decision waits for its entry's commit to the chain instead.
const env =
  journal === 'journal'
    ? { ...process.env, SUITE_DATA_DIR: dataDir }
    : { ...process.env, SUITE_DB_PATH: `${dataDir}/database`, SUITE_HMAC_SECRET: secrets.hmacSecret, SUITE_ADMIN_KEY: secrets.adminKey };
const config = loadConfig(env, secrets);
const logger = createLogger({ level: 'warn', service: 'suite', format: 'json' });
const suite = await startSuite(config, parseRoles([]), logger);
const token = suite.edges.find((e) => e.service === 'token');
const durable = suite.audit.durable.bind(suite.audit);
let mode: 'durable' | 'unawaited' = 'durable';
let flips = 0;
process.on('SIGUSR2', () => {
  flips++;
  mode = mode === 'durable' ? 'unawaited' : 'durable';
  suite.audit.durable = mode === 'durable' ? durable : () => Promise.resolve();
  process.stdout.write(`flip ${flips} mode ${mode}\n`);
});
process.once('SIGTERM', () => void suite.stop().then(() => process.exit(0)));
process.stdout.write(`listening ${token?.port} mode ${mode}\n`);
