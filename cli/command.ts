/**
 * The `suite` command (started by cli/suite.ts). `start` runs every role in this process (embedded
 * unless SUITE_NATS_URL / SUITE_DATABASE_URL say otherwise); `run ROLE...` runs chosen roles;
 * `migrate` applies migrations; `verify` checks an export file offline (cli/verify.ts).
 * With cli/suite.ts, the only place that reads process.env, and the only one that handles signals.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { ensureStoredSecrets, ConfigError, type StoredSecrets } from '../config/index.ts';
import { loadConfig } from '../services/index.ts';
import { createLogger } from '../observability/index.ts';
import { openStorage, StorageError } from '../storage/index.ts';
import { parseRoles, isRole, ALL_ROLES } from './roles.ts';
import { UsageError, unknownWord } from './usage.ts';
import { migrationSets, startSuite } from './runtime.ts';
import { verifyCommand } from './verify.ts';
import { mcpCommand } from './mcp.ts';
import { witnessCommand, WITNESS_USAGE } from './witness.ts';
import { pino } from 'pino';
import { asyncApiDocument, INTERFACE_VERSION } from '../bus/index.ts';
import { firstScreen } from './first-screen.ts';
import { ensureDashboardBuilt } from './dashboard-build.ts';

const USAGE = `usage:
  suite start [--data-dir DIR]      every role in one process (embedded default)
  suite run ROLE... [--data-dir DIR] chosen roles: all, ${ALL_ROLES.join(', ')}
  suite migrate                     apply database migrations and exit
  suite verify FILE --public-key PEM check an export of the execution chain offline (suite verify --help)
  suite mcp                         the MCP server on stdio: relays to a running suite (SUITE_TOKEN_URL), acting with SUITE_MCP_TOKEN (docs/MCP.md)
  suite asyncapi                    print the AsyncAPI document of the public NATS events (docs/EVENTS.md)
${WITNESS_USAGE}
Configuration comes from the environment: see docs/CONFIGURATION.md.`;

const COMMANDS = ['start', 'run', 'migrate', 'verify', 'mcp', 'asyncapi', 'witness'];
const OPTIONS = { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

/** node:util's parseArgs, its refusals turned into one line (an unknown option with a did-you-mean). */
function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw err;
    const option = /'(-{1,2}[^' ]+)/.exec((err as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
      throw unknownWord('option', option, ['--data-dir', '--help', '-h'], (w) => w);
    }
    throw new UsageError((err as Error).message);
  }
}

async function main(argv: string[]): Promise<number> {
  // Offline: no configuration, storage or bus, so nothing of the suite's environment is read.
  if (argv[0] === 'verify') return verifyCommand(argv.slice(1), process.stdout, process.stderr);
  // A witness reads no suite configuration either: its own folder, key and port (docs/WITNESS.md).
  if (argv[0] === 'witness') {
    const stop = new AbortController();
    process.once('SIGTERM', () => stop.abort());
    process.once('SIGINT', () => stop.abort());
    return witnessCommand(argv.slice(1), { stdout: process.stdout }, stop.signal);
  }
  if (argv[0] === 'asyncapi' && argv.length === 1) {
    process.stdout.write(`${JSON.stringify(asyncApiDocument(INTERFACE_VERSION), null, 2)}\n`);
    return 0;
  }
  const { values, positionals } = parseCommandLine(argv);
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  // Every mistake of the command line is found before anything is read, created or started.
  if (!COMMANDS.includes(command)) throw unknownWord('command', command, COMMANDS);
  // `verify` is handled above when it comes first; after an option it would fall through to a start.
  if (command === 'verify') throw new UsageError('verify comes first, its options after it: suite verify FILE --public-key PEM');
  if (command === 'witness') throw new UsageError('witness comes first, its options after it: suite witness --data-dir DIR --name NAME --log VKEY');
  if (command === 'asyncapi') throw new UsageError('asyncapi takes no argument nor option: suite asyncapi');
  const unknownRole = command === 'run' ? rest.find((r) => r !== 'all' && !isRole(r)) : undefined;
  if (unknownRole !== undefined) throw unknownWord('role', unknownRole, ['all', ...ALL_ROLES]);

  const env = { ...process.env };
  // The data folder: the environment wins over the flag (README: variables set by the user win).
  if (env.SUITE_DATA_DIR === undefined && values['data-dir'] !== undefined) env.SUITE_DATA_DIR = resolve(values['data-dir']);
  let stored: StoredSecrets | undefined;
  let created = false;
  if (env.SUITE_DATA_DIR) ({ secrets: stored, created } = await ensureStoredSecrets(env.SUITE_DATA_DIR));
  const config = loadConfig(env, stored);
  // Standard output is the MCP protocol's channel: the log goes to standard error, as JSON.
  if (command === 'mcp') {
    const logger = createLogger({
      level: config.logLevel as 'info',
      service: 'suite-mcp',
      format: 'json',
      destination: pino.destination({ dest: 2, sync: false }),
    });
    const stop = new AbortController();
    process.once('SIGTERM', () => stop.abort());
    process.once('SIGINT', () => stop.abort());
    const code = await mcpCommand(config, logger, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, signal: stop.signal });
    // Standard input may still hold the event loop open once the session is over.
    process.stdin.destroy();
    return code;
  }
  // JSON for collectors unless asked otherwise, or unless a person watches (a terminal).
  const logFormat = config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const logger = createLogger({ level: config.logLevel as 'info', service: 'suite', format: logFormat, color: config.color && process.stdout.isTTY === true });

  if (command === 'migrate') {
    const storage = await openStorage({
      migrationSets: migrationSets(),
      ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl } : {}),
      ...(config.dbPath !== undefined ? { dbPath: config.dbPath } : {}),
      logger,
    });
    await storage.close();
    logger.info('migrations applied');
    return 0;
  }

  const roles = parseRoles(command === 'start' ? [] : rest);
  if (config.adminKey === undefined) logger.warn('no admin key configured (SUITE_ADMIN_KEY): the first token cannot be minted');
  if (command === 'start') ensureDashboardBuilt(logger);
  const suite = await startSuite(config, roles, logger);

  // After the start-up lines (pino writes them asynchronously), on standard error: apart from the
  // log, which may be JSON read by a collector from standard output.
  await new Promise<void>((done) => logger.flush(() => done()));
  const tokenEdge = suite.edges.find((e) => e.service === 'token');
  process.stderr.write(
    firstScreen({
      // Shown once, on the run that generated it; it is also in DATA_DIR/secrets.json (mode 600).
      firstRun:
        created && config.adminKey !== undefined && config.adminKey === stored?.adminKey
          ? { secretsFile: join(env.SUITE_DATA_DIR as string, 'secrets.json'), adminKey: config.adminKey }
          : undefined,
      tokenUrl: `http://${config.host}:${tokenEdge?.port ?? config.ports.token}`,
      listeners: suite.edges.map((e) => ({ service: e.service, url: `http://${config.host}:${e.port}` })),
      color: config.color && process.stderr.isTTY === true,
    }),
  );

  return new Promise<number>((resolveExit) => {
    let signalled = false;
    const shutdown = (signal: string, exitCode = 0) => {
      if (signalled) return;
      signalled = true;
      logger.info({ signal }, 'shutting down: draining edges, then actors, then bus and storage; then the last spans are sent');
      const force = setTimeout(() => {
        logger.error('shutdown grace time exceeded; exiting');
        // Something still holds the event loop (a request waiting on a lost broker): leave anyway.
        process.exit(1);
      }, config.shutdownGraceMs);
      force.unref();
      // The code is set now, not only when stop() ends: a part's stop may wait on something that can
      // no longer happen (a query to the database that just died) with nothing left to wake it, and
      // Node then ends the process as soon as the event loop is empty, with this code (seen beside a
      // CPU hog: a storage-lost shutdown ended with 0). Such an end is logged, naming the part.
      process.exitCode = exitCode;
      process.once('beforeExit', () => {
        const part = suite.stoppingPart();
        if (part === undefined) return;
        process.exitCode = 1;
        logger.error({ part }, 'shutdown ended before every part had stopped: this part waited on nothing that could finish');
      });
      suite.stop().then(
        () => resolveExit(exitCode),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          resolveExit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    // Storage that cannot come back (the embedded Postgres would not restart): say so once and end,
    // non-zero, rather than answer 503 for good.
    void suite.fatal.then((err) => {
      logger.fatal({ code: (err as { code?: string }).code }, err.message);
      shutdown('storage lost', 1);
    });
  });
}

export function run(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`suite: ${err.message}\n${USAGE}\n`);
        process.exitCode = 2;
        return;
      }
      // A folder in use by another suite is an operator's situation, said in one sentence (issue 36, item 6).
      const sentence = err instanceof StorageError && err.code === 'DATABASE_IN_USE';
      const message =
        err instanceof ConfigError
          ? `configuration error: ${err.message}`
          : sentence
            ? (err as StorageError).message
            : err instanceof Error
              ? (err.stack ?? err.message)
              : String(err);
      process.stderr.write(`suite: ${message}\n`);
      process.exitCode = 1;
    },
  );
}
