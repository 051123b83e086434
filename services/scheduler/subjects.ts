import { requestSubject } from '../../bus/index.ts';
import * as s from './schemas.ts';

/** The scheduler's bus subjects (`suite.scheduler.<verb>`), served by the scheduler actor (queue `scheduler`). */
export const schedulerSubjects = {
  scheduleCreate: requestSubject('suite.scheduler.schedule-create', s.ScheduleCreateRequest, s.ScheduleCreateReply),
  scheduleList: requestSubject('suite.scheduler.schedule-list', s.ScheduleListRequest, s.ScheduleListReply),
  scheduleGet: requestSubject('suite.scheduler.schedule-get', s.ScheduleGetRequest, s.ScheduleView),
  scheduleDelete: requestSubject('suite.scheduler.schedule-delete', s.ScheduleItemRequest, s.ScheduleDeleteReply),
  schedulePause: requestSubject('suite.scheduler.schedule-pause', s.ScheduleItemRequest, s.ScheduleView),
  scheduleResume: requestSubject('suite.scheduler.schedule-resume', s.ScheduleItemRequest, s.ScheduleView),
  enqueue: requestSubject('suite.scheduler.enqueue', s.EnqueueRequest, s.EnqueueReply),
  queueList: requestSubject('suite.scheduler.queue-list', s.QueueListRequest, s.QueueListReply),
  taskStatus: requestSubject('suite.scheduler.task-status', s.TaskStatusRequest, s.TaskStatusReply),
  health: requestSubject('suite.scheduler.health', s.HealthRequest, s.HealthReply),
  logs: requestSubject('suite.scheduler.logs', s.LogsRequest, s.LogsReply),
} as const;
