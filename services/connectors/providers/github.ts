import { ConnectorError, GITHUB, type Connector, type ConnectorContext } from '../../../core/connectors/index.ts';
import { field, joinUrl, jsonOf, requireSetting, said } from './answers.ts';

interface Repo {
  owner: string;
  repo: string;
}
interface NewIssue extends Repo {
  title: string;
  body?: string;
  labels?: string[];
}
interface IssueRef extends Repo {
  number: number;
}

/** GitHub REST (https://docs.github.com/rest): a JSON body, `message` in errors, 2022-11-28 version. */
async function callGithub(ctx: ConnectorContext, method: string, path: string, body?: unknown): Promise<unknown> {
  const token = requireSetting(ctx.settings, 'CONNECTOR_GITHUB_TOKEN', 'github');
  const base = requireSetting(ctx.settings, 'CONNECTOR_GITHUB_API_URL', 'github');
  const answer = await ctx.http({
    url: joinUrl(base, path),
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'agent-authority-suite-connector',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (answer.status >= 500) throw new ConnectorError('provider-unavailable', `github ${method} ${path}: status ${answer.status}`);
  const json = jsonOf('github', answer);
  if (answer.status >= 200 && answer.status < 300) return json;
  const message = said(field(json, 'message')) || 'no message';
  if (answer.status === 401) throw new ConnectorError('credentials-rejected', `github: the token was rejected (401 ${message})`);
  if ((answer.status === 403 || answer.status === 429) && /rate limit/i.test(message)) {
    throw new ConnectorError('provider-unavailable', `github ${method} ${path}: rate limited (${answer.status} ${message})`);
  }
  throw new ConnectorError('provider-rejected', `github ${method} ${path}: ${answer.status} ${message}`);
}

const repoPath = (r: Repo) => `/repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;

function issueOf(json: unknown) {
  const labels = field(json, 'labels');
  return {
    number: field(json, 'number') ?? null,
    title: field(json, 'title') ?? null,
    state: field(json, 'state') ?? null,
    body: field(json, 'body') ?? null,
    url: field(json, 'html_url') ?? null,
    author: field(field(json, 'user'), 'login') ?? null,
    labels: Array.isArray(labels) ? labels.map((l) => (typeof l === 'string' ? l : (field(l, 'name') ?? null))) : [],
    createdAt: field(json, 'created_at') ?? null,
  };
}

export const githubConnector: Connector = {
  manifest: GITHUB,
  async verify(ctx) {
    const json = await callGithub(ctx, 'GET', '/user');
    return { detail: `github GET /user: token of ${said(field(json, 'login')) || 'an unnamed account'}` };
  },
  actions: {
    async create_issue(ctx: ConnectorContext, input: NewIssue) {
      const { owner: _o, repo: _r, ...issue } = input;
      return issueOf(await callGithub(ctx, 'POST', `${repoPath(input)}/issues`, issue));
    },
    async get_issue(ctx: ConnectorContext, input: IssueRef) {
      return issueOf(await callGithub(ctx, 'GET', `${repoPath(input)}/issues/${input.number}`));
    },
  },
};
