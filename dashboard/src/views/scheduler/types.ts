/** Shapes of the scheduler's answers (docs/SCHEDULER.md). */
export interface ScheduleRow {
  id: string;
  cron: string;
  timezone: string | null;
  state: 'active' | 'paused';
  nextRun: string | null;
  lastFiredAt: string | null;
  firings: number;
  createdAt: string;
  timeout: number;
}
export interface ScheduleList {
  schedules: ScheduleRow[];
  total: number;
  limit: number;
  offset: number;
}

export const TASK_STATES = ['queued', 'running', 'retrying', 'succeeded', 'failed', 'dead'] as const;

export interface TaskRow {
  id: string;
  state: string;
  priority: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  lastStatus: number | null;
  scheduleId: string | null;
  dueAt: string | null;
  createdAt: string;
  runAfter: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}
export interface TaskList {
  tasks: TaskRow[];
  total: number;
  limit: number;
  offset: number;
}

export interface RuntimeHealth {
  outboundPolicy: { source: string; allow: string[] };
  scripts: { enabled: boolean };
  workers: { replica: string; slots: number; busy: number; replicasWithLeases: number };
  queue: { depth: { high: number; normal: number; low: number }; running: number; oldestWaitingMs: number | null; maxLength: number };
  breakers: { host: string; state: string }[];
}

export interface LogEvent {
  seq: number;
  at: string;
  kind: string;
  taskId: string | null;
  scheduleId: string | null;
  attempt: number | null;
  detail: string;
}
export interface LogPage {
  events: LogEvent[];
  next: number | null;
}

/** Scopes of the scheduler's routes, named in each panel's "not permitted". */
export const SCOPE = { schedules: 'schedule:read', manage: 'schedule:create', queue: 'queue:read', runtime: 'runtime:read' } as const;

/** One ended attempt of a task and the id of its record on the execution chain (its signed trace). */
export interface AttemptRow {
  attempt: number;
  startedAt: string;
  endedAt: string;
  outcome: string;
  status: number | null;
  error: string | null;
  traceId: string | null;
}
/** `GET /queue/{id}/status`: the task and its ended attempts, first to last. */
export interface TaskStatus extends TaskRow {
  history: AttemptRow[];
}
