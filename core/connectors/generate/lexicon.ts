/**
 * The generator's rules as data: the services it knows by name (their API base URL, how a token is
 * presented, a read-only call that checks it), the verbs it understands and what each becomes, and
 * the words it skips. Adding a service or a verb is a line here.
 */

export interface KnownService {
  readonly title: string;
  readonly baseUrl: string;
  /** Header carrying the credential, and what precedes the token in it. */
  readonly authHeader: string;
  readonly authPrefix: string;
  /** A GET that reads who the credential is, changing nothing. */
  readonly verifyPath: string;
}

const bearer = (title: string, baseUrl: string, verifyPath: string): KnownService =>
  ({ title, baseUrl, authHeader: 'authorization', authPrefix: 'Bearer ', verifyPath });

// Null-prototype tables: a prompt word such as "constructor" must find nothing here.
export const KNOWN_SERVICES: Readonly<Record<string, KnownService>> = Object.freeze(Object.assign(Object.create(null) as Record<string, KnownService>, {
  notion: bearer('Notion', 'https://api.notion.com/v1', '/users/me'),
  stripe: bearer('Stripe', 'https://api.stripe.com/v1', '/balance'),
  airtable: bearer('Airtable', 'https://api.airtable.com/v0', '/meta/whoami'),
  hubspot: bearer('HubSpot', 'https://api.hubapi.com', '/account-info/v3/details'),
  sendgrid: bearer('SendGrid', 'https://api.sendgrid.com/v3', '/user/profile'),
  asana: bearer('Asana', 'https://app.asana.com/api/1.0', '/users/me'),
  trello: bearer('Trello', 'https://api.trello.com/1', '/members/me'),
  zendesk: bearer('Zendesk', 'https://example.zendesk.com/api/v2', '/users/me'),
  jira: bearer('Jira', 'https://example.atlassian.net/rest/api/3', '/myself'),
  intercom: bearer('Intercom', 'https://api.intercom.io', '/me'),
  gitlab: { title: 'GitLab', baseUrl: 'https://gitlab.com/api/v4', authHeader: 'private-token', authPrefix: '', verifyPath: '/user' },
  datadog: { title: 'Datadog', baseUrl: 'https://api.datadoghq.com', authHeader: 'dd-api-key', authPrefix: '', verifyPath: '/api/v1/validate' },
  pagerduty: { title: 'PagerDuty', baseUrl: 'https://api.pagerduty.com', authHeader: 'authorization', authPrefix: 'Token token=', verifyPath: '/users/me' },
  discord: { title: 'Discord', baseUrl: 'https://discord.com/api/v10', authHeader: 'authorization', authPrefix: 'Bot ', verifyPath: '/users/@me' },
}));

export type VerbClass = 'create' | 'read' | 'list' | 'update' | 'delete';

export const VERBS: Readonly<Record<string, VerbClass>> = Object.freeze(Object.assign(Object.create(null) as Record<string, VerbClass>, {
  create: 'create', add: 'create', post: 'create', send: 'create', open: 'create', submit: 'create', publish: 'create', insert: 'create', write: 'create',
  get: 'read', read: 'read', fetch: 'read', retrieve: 'read', show: 'read', view: 'read', lookup: 'read', load: 'read',
  list: 'list', search: 'list', find: 'list', query: 'list', browse: 'list',
  update: 'update', edit: 'update', modify: 'update', change: 'update', rename: 'update', patch: 'update', close: 'update', resolve: 'update', assign: 'update',
  delete: 'delete', remove: 'delete', cancel: 'delete', archive: 'delete', destroy: 'delete',
}));

/** Words that never name a service, a resource or a field. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'new', 'some', 'all', 'any', 'my', 'our', 'their', 'its', 'one', 'existing', 'single', 'multiple', 'each', 'every',
  'and', 'or', 'to', 'for', 'from', 'with', 'in', 'on', 'of', 'by', 'into', 'at', 'as', 'via', 'using', 'that', 'which', 'then', 'also',
  'it', 'them', 'is', 'are', 'be', 'can', 'should', 'will', 'please', 'i', 'we', 'want', 'need', 'let', 'lets', 'me', 'us', 'agent', 'agents',
  'connector', 'connectors', 'integration', 'api', 'apis', 'rest', 'service', 'app', 'application', 'http', 'https', 'json', 'endpoint',
  'token', 'bearer', 'key', 'oauth', 'auth', 'basic', 'url', 'base', 'build', 'make', 'generate', 'talk', 'talks', 'call', 'calls', 'use',
  'allow', 'allows', 'able', 'how', 'up', 'look', 'so', 'this', 'these', 'those', 'account', 'like', 'about', 'com', 'www',
]);

/** Words after "with" that end a list of fields. */
export const FIELD_LIST_END: ReadonlySet<string> = new Set(['to', 'for', 'from', 'in', 'on', 'by', 'into', 'at', 'via', 'using', 'that', 'which', 'then', 'so']);
