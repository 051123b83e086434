/** What people call the API's fields: the dashboard shows these, never the raw names. */
const LABELS: Record<string, string> = {
  id: 'Id',
  seq: 'Seq',
  state: 'State',
  priority: 'Priority',
  attempts: 'Attempts',
  maxAttempts: 'Attempts allowed',
  lastError: 'Last error',
  lastStatus: 'Last status',
  scheduleId: 'Schedule',
  taskId: 'Task',
  dueAt: 'Due',
  createdAt: 'Created',
  runAfter: 'Runs after',
  startedAt: 'Started',
  finishedAt: 'Finished',
  updatedAt: 'Updated',
  endedAt: 'Ended',
  traceId: 'Signed trace',
  nextRun: 'Next run',
  lastFiredAt: 'Last fired',
  firings: 'Firings',
  timezone: 'Time zone',
  cron: 'Cron',
  timeout: 'Timeout (ms)',
  timestamp: 'Time',
  subject: 'Subject',
  scope: 'Scope',
  module: 'Module',
  action: 'Action',
  outcome: 'Outcome',
  inputHash: 'Input hash',
  outputHash: 'Output hash',
  prevHash: 'Previous hash',
  hash: 'Hash',
  signature: 'Signature',
  keyId: 'Signing key',
  cost: 'Cost',
  governance: 'Governance',
  attested: 'Attested by',
  tenantId: 'Tenant',
  capabilityJti: 'Capability (jti)',
  at: 'At',
  kind: 'Event',
  detail: 'Detail',
  attempt: 'Attempt',
  status: 'Status',
  error: 'Error',
  result: 'Decision',
  reason: 'Reason',
  resource: 'Resource',
};

/** The label of a field: its human name, or the camelCase name spelled out ("firstSeenAt" → "First seen at"). */
export function label(field: string): string {
  const known = LABELS[field];
  if (known !== undefined) return known;
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Fields that hold an ISO time: shown relative, exact on hover and focus. */
export const TIME_FIELDS = new Set([
  'dueAt',
  'createdAt',
  'runAfter',
  'startedAt',
  'finishedAt',
  'updatedAt',
  'endedAt',
  'timestamp',
  'at',
  'nextRun',
  'lastFiredAt',
]);

/** A route segment as the page linked it: %-escapes undone (a malformed one is kept as typed). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
