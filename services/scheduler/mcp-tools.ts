import { attestationOf, defineTool, type McpTool } from '../../edge-mcp/index.ts';
import { schedulerSubjects as subjects } from './subjects.ts';
import { QueueBody, ScheduleBody, TaskView } from './schemas.ts';

/** The scheduler's routes as MCP tools (docs/MCP.md): the bodies and scopes of POST /schedule and POST /queue. */
export function schedulerTools(): McpTool[] {
  return [
    defineTool({
      name: 'create_schedule',
      description: 'Create a durable cron schedule that runs an HTTP or script task, each run traced on the execution chain.',
      scope: 'schedule:create',
      route: 'POST /schedule',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.scheduleCreate.reply,
      input: ScheduleBody,
      run: (args, caller, bus) => bus.request(subjects.scheduleCreate, { ...args, owner: attestationOf(caller) }),
    }),
    defineTool({
      name: 'queue_task',
      description: 'Queue a one-off HTTP or script task (priority, delay, retry), run by a scheduler worker and traced.',
      scope: 'queue:write',
      route: 'POST /queue',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: TaskView,
      input: QueueBody,
      async run(args, caller, bus) {
        const r = await bus.request(subjects.enqueue, { ...args, owner: attestationOf(caller) });
        if (!r.ok) return r;
        if (!r.value.accepted) return { ok: false, error: { code: 'RATE_LIMITED', message: r.value.message } };
        return { ok: true, value: r.value.task };
      },
    }),
  ];
}
