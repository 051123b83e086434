import { Type, type Static } from 'typebox';
import { CallerSchema, requestSubject, subjects, Text } from '../../bus/index.ts';

/** The benchmark service's bus subjects (`suite.bench.<verb>`) and message schemas (docs/BENCHMARK.md). */

export const PROVIDER_NAMES = ['ollama', 'openai', 'anthropic', 'http'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export const ProviderSchema = Type.Union([Type.Literal('ollama'), Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('http')]);

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
const StatusSchema = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);

// Stored as jsonb: no NUL and no lone surrogate (Postgres refuses both), as bus Text; no CR or LF in a header.
const HEADER_VALUE = '^(?:[^\\u0000\\r\\n\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';
const HeaderName = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$";

/** Limits of POST /run (spec, "Limits"; the maxima the spec leaves open are ours, docs/BENCHMARK.md). */
export const RUN_LIMITS = { testRuns: 500, warmupRuns: 100, concurrency: 32 } as const;

export const JobId = Type.String({ pattern: '^bench_[0-9a-f]{32}$' });
export const RunName = Text(200);
/** A job id, or a run name (the newest finished run of that name). */
export const JobRef = Text(200);

/** The body of POST /run as sent (the edge validates it; the runner gets the same fields). */
export const RunFields = {
  provider: ProviderSchema,
  model: Type.Optional(Text(200)),
  url: Type.Optional(Text(2048)),
  name: Type.Optional(RunName),
  testRuns: Type.Integer({ minimum: 1, maximum: RUN_LIMITS.testRuns, default: 10 }),
  warmupRuns: Type.Integer({ minimum: 0, maximum: RUN_LIMITS.warmupRuns, default: 2 }),
  concurrency: Type.Integer({ minimum: 1, maximum: RUN_LIMITS.concurrency, default: 1 }),
  // Provider http only: the request each call sends.
  method: Type.Optional(
    Type.Union([Type.Literal('GET'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('DELETE'), Type.Literal('HEAD')]),
  ),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 4096, pattern: HEADER_VALUE }), { maxProperties: 32, propertyNames: { pattern: HeaderName } }),
  ),
  body: Type.Optional(Text(65_536, 0)),
  // LLM providers only: what each call asks for.
  prompt: Type.Optional(Text(16_384)),
  maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
};
export const RunBody = Type.Object(RunFields, { additionalProperties: false });
export type RunSettings = Static<typeof RunBody>;

const SubmitRequest = Type.Object({ ...RunFields, caller: CallerSchema });
const SubmitReply = Type.Object({ jobId: JobId, status: StatusSchema, estimatedDuration: Type.String() });

const JobRequest = Type.Object({ jobId: JobId, caller: CallerSchema });
/** A job as a read shows it: never its request headers or body. */
export const JobView = Type.Object({
  jobId: JobId,
  name: Type.Union([Type.String(), Type.Null()]),
  provider: ProviderSchema,
  model: Type.Union([Type.String(), Type.Null()]),
  target: Type.Union([Type.String(), Type.Null()]),
  status: StatusSchema,
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  settings: Type.Object({ testRuns: Type.Integer(), warmupRuns: Type.Integer(), concurrency: Type.Integer() }),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  /** The measurements (docs/BENCHMARK.md, "Result"); null until the job succeeded. */
  result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
});
export type JobViewData = Static<typeof JobView>;

export const HistoryQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
    name: Type.Optional(RunName),
    provider: Type.Optional(ProviderSchema),
    model: Type.Optional(Text(200)),
  },
  { additionalProperties: false },
);
const HistoryRequest = Type.Object({ ...HistoryQuery.properties, caller: CallerSchema });
const HistoryReply = Type.Object({ runs: Type.Array(JobView), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });

export const CompareQuery = Type.Object({ baseline: JobRef, candidate: JobRef }, { additionalProperties: false });
const CompareRequest = Type.Object({ baseline: JobRef, candidate: JobRef, caller: CallerSchema });
const Sample = Type.Object({ n: Type.Integer(), meanMs: Type.Number(), stddevMs: Type.Number() });
const CompareReply = Type.Object({
  deltaMeanMs: Type.Number(),
  deltaPercent: Type.Number(),
  significant: Type.Boolean(),
  verdict: Type.Union([Type.Literal('regression'), Type.Literal('improvement'), Type.Literal('no significant change')]),
  alpha: Type.Number(),
  minimumDeltaPercent: Type.Number(),
  baseline: Type.Object({ jobId: JobId, name: Type.Union([Type.String(), Type.Null()]), ...Sample.properties }),
  candidate: Type.Object({ jobId: JobId, name: Type.Union([Type.String(), Type.Null()]), ...Sample.properties }),
  welch: Type.Object({ t: Type.Union([Type.Number(), Type.Null()]), df: Type.Number(), pValue: Type.Number() }),
  effectSize: Type.Object({ cohensD: Type.Union([Type.Number(), Type.Null()]), magnitude: Type.String() }),
  mannWhitney: Type.Object({ u: Type.Number(), pValue: Type.Number(), probabilityOfSuperiority: Type.Number(), significant: Type.Boolean() }),
});

export const CoreBody = Type.Object(
  {
    iterations: Type.Integer({ minimum: 10, maximum: 1000, default: 200 }),
    chainLength: Type.Integer({ minimum: 10, maximum: 10_000, default: 1000 }),
  },
  { additionalProperties: false },
);
const CoreRequest = Type.Object({ ...CoreBody.properties, caller: CallerSchema });
const CoreStarted = Type.Object({ runId: Type.String(), status: Type.Literal('running'), estimatedDuration: Type.String() });
const CoreRun = Type.Object({
  runId: Type.String(),
  machineKey: Type.String(),
  machine: Type.Record(Type.String(), Type.Unknown()),
  result: Type.Record(Type.String(), Type.Unknown()),
  createdBy: Type.String(),
  createdAt: Type.String(),
});
const CoreRegression = Type.Object({
  verdict: Type.Union([Type.Literal('regression'), Type.Literal('improvement'), Type.Literal('no significant change')]),
  machineKey: Type.String(),
  latest: Type.String(),
  previous: Type.String(),
  operations: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
});

export const benchSubjects = {
  submit: requestSubject('suite.bench.submit', SubmitRequest, SubmitReply),
  get: requestSubject('suite.bench.get', JobRequest, JobView),
  history: requestSubject('suite.bench.history', HistoryRequest, HistoryReply),
  compare: requestSubject('suite.bench.compare', CompareRequest, CompareReply),
  coreRun: requestSubject('suite.bench.core-run', CoreRequest, CoreStarted),
  coreLatest: requestSubject('suite.bench.core-latest', Type.Object({}), CoreRun),
  coreRegression: requestSubject('suite.bench.core-regression', Type.Object({}), CoreRegression),
  /** A job's progress and state changes, for live views (the dashboard). */
  progress: subjects.benchProgress,
} as const;
