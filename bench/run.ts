/**
 * Every benchmark, one after the other, printed as one Markdown block (what docs/PERFORMANCE.md
 * keeps). Bounded in time: a watchdog ends every child process and exits if the run overstays.
 *
 *   npm run bench [-- --seconds 10 --warmup 3 --connections 50 --protected-path /capabilities
 *                     --no-pin --cpu-prof DIR --attempts 3 --foreign-limit 15 --tokens 500 --revoke-warmup 20
 *                     --nats-url URL --exec-seconds 10 --verify-records 100000 --memory-records 1000000
 *                     --tasks 3000 --sched-exec-seconds 10 --schedules 1000 --workers 32
 *                     --timeout 1800]
 *
 * Targets only 127.0.0.1: the servers it starts, the local Postgres (for a throw-away database) and
 * a private nats-server on a free loopback port.
 */
import { parseArgs } from 'node:util';
import { killAllChildren } from './child.ts';
import { HTTP_ARGS, httpMarkdown, httpOptionsFrom, runHttpBench } from './http.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { REVOCATION_ARGS, revocationMarkdown, revocationOptionsFrom, runRevocationBench } from './revocation.ts';
import { EXECUTIONS_ARGS, executionsMarkdown, runExecutionsBench } from './executions.ts';
import { busMarkdown, runBusBench } from './bus.ts';
import { SCHEDULER_ARGS, runSchedulerBench, schedulerMarkdown } from './scheduler.ts';
import { cpuPerAnsweredUs, cpuRatiosMarkdown, loadNow, non2xxOf, signatureCpuUs } from './cpu-ratios.ts';
import type { LoadResult } from './load.ts';
import { cronLatenessMarkdown, runCronLateness } from './cron-lateness.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { ...HTTP_ARGS, ...REVOCATION_ARGS, ...EXECUTIONS_ARGS, ...SCHEDULER_ARGS, timeout: { type: 'string', default: '1800' } },
});

const timeoutSeconds = Number(values.timeout);
const watchdog = setTimeout(() => {
  process.stderr.write(`bench: still running after ${timeoutSeconds} s; ending every child process and giving up\n`);
  killAllChildren();
  process.exit(2);
}, timeoutSeconds * 1000);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}

const section = async (title: string, body: () => Promise<{ text: string; ok: boolean }>): Promise<boolean> => {
  process.stderr.write(`bench: ${title}...\n`);
  try {
    const { text, ok } = await body();
    process.stdout.write(`### ${title}\n\n${text}\n\n`);
    return ok;
  } catch (err) {
    process.stdout.write(`### ${title}\n\n**Failed:** ${err instanceof Error ? err.message : String(err)}\n\n`);
    return false;
  }
};

const machine = await describeMachine();
process.stdout.write(`## Benchmark results (\`npm run bench\`)\n\n### Machine\n\n${machineMarkdown(machine)}\n\n`);

// What the CPU-ratio section (issue 28) takes from the HTTP and append runs, with the load average then.
let forRatios: { bare?: LoadResult; validate?: LoadResult; httpLoad: number; append?: LoadResult; appendLoad: number } = { httpLoad: 0, appendLoad: 0 };

const httpOk = await section('HTTP throughput (token edge vs bare Fastify)', async () => {
  const r = await runHttpBench(httpOptionsFrom(values));
  forRatios = { ...forRatios, bare: r.bare, validate: r.validate, httpLoad: loadNow() };
  return { text: httpMarkdown(r), ok: r.failures.length === 0 };
});
const revocationOk = await section('Revocation propagation over NATS', async () => {
  const r = await runRevocationBench(revocationOptionsFrom(values));
  return { text: revocationMarkdown(r), ok: r.missing === 0 };
});
const executionsOk = await section('Execution traces (appends, verification)', async () => {
  const r = await runExecutionsBench({
    seconds: Number(values['exec-seconds']),
    warmup: Number(values.warmup),
    verifyRecords: Number(values['verify-records']),
    memoryRecords: Number(values['memory-records']),
  });
  forRatios = { ...forRatios, append: r.appends.find((a) => a.name.includes('embedded')), appendLoad: loadNow() };
  return { text: executionsMarkdown(r), ok: r.appends.every((a) => a.non2xx + a.errors === 0) && r.verifications.every((v) => v.valid) };
});

const ratiosOk = await section('CPU per answered request against what the work needs (issue 28)', async () => {
  const { bare, validate, append } = forRatios;
  if (!bare || !validate || !append) throw new Error('the HTTP or the append run did not complete: no ratio to give');
  const signatureUs = signatureCpuUs();
  return {
    text: cpuRatiosMarkdown({
      bareUs: cpuPerAnsweredUs(bare),
      validateUs: cpuPerAnsweredUs(validate),
      appendUs: cpuPerAnsweredUs(append),
      signatureUs,
      load: { http: forRatios.httpLoad, append: forRatios.appendLoad, signature: loadNow() },
      non2xx: { bare: non2xxOf(bare), validate: non2xxOf(validate), append: non2xxOf(append) },
    }),
    ok: true,
  };
});

const busOk = await section('The bus alone (memory transport)', async () => {
  const requests = 40_000;
  return { text: busMarkdown(await runBusBench({ requests, rounds: 2 }), requests), ok: true };
});

const schedulerOk = await section('Scheduler (queue throughput, cron lateness)', async () => {
  const r = await runSchedulerBench({
    tasks: Number(values.tasks),
    execSeconds: Number(values['sched-exec-seconds']),
    schedules: Number(values.schedules),
    workers: Number(values.workers),
  });
  return { text: schedulerMarkdown(r), ok: r.tasksFailed === 0 };
});

const cronOk = await section('Cron firing lateness as a user sees it (scheduler defaults, issue 28)', async () => {
  const r = await runCronLateness({ schedules: Number(values.schedules) });
  return { text: cronLatenessMarkdown(r), ok: r.missing === 0 };
});

clearTimeout(watchdog);
process.exitCode = httpOk && revocationOk && executionsOk && ratiosOk && busOk && schedulerOk && cronOk ? 0 : 1;
