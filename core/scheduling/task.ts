/**
 * The rules of a task definition beyond its schema's shape (spec, "Task definition"). Each problem
 * names the field, for a 400 `INVALID_REQUEST`. Pure: no resolution, no file system.
 */

export interface TaskDefinition {
  readonly type: 'http' | 'script';
  readonly url?: string | undefined;
  readonly method?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: unknown;
  readonly script?: string | undefined;
  readonly args?: readonly string[] | undefined;
}

/** Set by the client library from the connection, or meaningless to forward. */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
const MAX_BODY_DEPTH = 32;
const MAX_BODY_CHARS = 256 * 1024;

export function taskProblem(task: TaskDefinition, options: { readonly scriptsEnabled: boolean }, field = 'task'): string | undefined {
  if (task.type === 'http') return httpProblem(task, field);
  if (!options.scriptsEnabled) return `${field}: script tasks are off on this deployment (set SCHEDULER_SCRIPT_ROOT to enable them)`;
  return scriptProblem(task, field);
}

function httpProblem(task: TaskDefinition, field: string): string | undefined {
  for (const name of ['script', 'args'] as const) {
    if (task[name] !== undefined) return `${field}.${name} belongs to a script task, not an http task`;
  }
  if (task.url === undefined) return `${field}.url is required for an http task`;
  let url: URL;
  try {
    url = new URL(task.url);
  } catch {
    return `${field}.url must be an absolute http or https URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${field}.url must use http or https`;
  if (url.username !== '' || url.password !== '') return `${field}.url must not carry credentials (send them in ${field}.headers)`;
  for (const name of Object.keys(task.headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-')) return `${field}.headers.${name} is set by the scheduler and may not be given`;
  }
  const method = task.method ?? 'GET';
  if (task.body !== undefined) {
    if (method === 'GET' || method === 'HEAD') return `${field}.body is not allowed with method ${method}`;
    const problem = bodyProblem(task.body);
    if (problem !== undefined) return `${field}.body ${problem}`;
  }
  return undefined;
}

function scriptProblem(task: TaskDefinition, field: string): string | undefined {
  for (const name of ['url', 'method', 'headers', 'body'] as const) {
    if (task[name] !== undefined) return `${field}.${name} belongs to an http task, not a script task`;
  }
  const script = task.script;
  if (script === undefined) return `${field}.script is required for a script task`;
  if (script.includes('\0')) return `${field}.script must not contain a NUL byte`;
  if (script.startsWith('/') || script.startsWith('\\') || /^[A-Za-z]:/.test(script)) return `${field}.script must be a path relative to the script root`;
  if (script.split(/[\\/]/).some((part) => part === '..')) return `${field}.script must not contain ".."`;
  for (const [i, arg] of (task.args ?? []).entries()) {
    if (arg.includes('\0')) return `${field}.args[${i}] must not contain a NUL byte`;
  }
  return undefined;
}

/** What Postgres jsonb and the trace hash can carry: no NUL, no lone surrogate, bounded depth and size. */
function bodyProblem(body: unknown): string | undefined {
  if (depthOf(body, 0) > MAX_BODY_DEPTH) return `must not nest deeper than ${MAX_BODY_DEPTH} levels`;
  const text = JSON.stringify(body);
  if (text.length > MAX_BODY_CHARS) return `must not be longer than ${MAX_BODY_CHARS} characters as JSON`;
  if (text.includes('\\u0000')) return 'must not contain a NUL character';
  // JSON.stringify writes a lone surrogate as an escape (well-formed JSON.stringify, ES2019).
  if (/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i.test(text)) return 'must not contain a lone surrogate';
  return undefined;
}

function depthOf(value: unknown, depth: number): number {
  if (depth > MAX_BODY_DEPTH || value === null || typeof value !== 'object') return depth;
  let max = depth + 1;
  for (const child of Object.values(value)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}
