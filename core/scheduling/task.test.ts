import { describe, expect, it } from 'vitest';
import { taskProblem } from './task.ts';

const on = { scriptsEnabled: true };

describe('task rules', () => {
  it('accepts an http task with method, headers and a JSON body', () => {
    expect(
      taskProblem({ type: 'http', url: 'https://example.com/hook', method: 'POST', headers: { 'x-api-key': 'k' }, body: { a: [1, 2] } }, on),
    ).toBeUndefined();
  });

  it('names the field of each problem of an http task', () => {
    expect(taskProblem({ type: 'http' }, on)).toBe('task.url is required for an http task');
    expect(taskProblem({ type: 'http', url: 'not a url' }, on)).toMatch(/^task\.url/);
    expect(taskProblem({ type: 'http', url: 'ftp://example.com/' }, on)).toMatch(/^task\.url must use http or https/);
    expect(taskProblem({ type: 'http', url: 'http://u:p@example.com/' }, on)).toMatch(/^task\.url must not carry credentials/);
    expect(taskProblem({ type: 'http', url: 'http://example.com/', headers: { Host: 'x' } }, on)).toMatch(/^task\.headers\.Host/);
    expect(taskProblem({ type: 'http', url: 'http://example.com/', headers: { 'Proxy-Authorization': 'x' } }, on)).toMatch(/^task\.headers/);
    expect(taskProblem({ type: 'http', url: 'http://example.com/', body: 'x' }, on)).toMatch(/^task\.body is not allowed with method GET/);
    expect(taskProblem({ type: 'http', url: 'http://example.com/', script: 'a.sh' }, on)).toMatch(/^task\.script belongs to a script task/);
  });

  it('refuses bodies Postgres or the trace hash cannot carry', () => {
    const post = (body: unknown) => taskProblem({ type: 'http', url: 'http://example.com/', method: 'POST', body }, on);
    expect(post({ a: 'nul\u0000' })).toMatch(/NUL/);
    expect(post({ 'k\u0000': 1 })).toMatch(/NUL/);
    expect(post(['\ud800'])).toMatch(/lone surrogate/);
    expect(post(['\udc00x'])).toMatch(/lone surrogate/);
    expect(post(['😀'])).toBeUndefined();
    expect(post(JSON.parse('['.repeat(40) + ']'.repeat(40)))).toMatch(/nest/);
    expect(post('x'.repeat(300 * 1024))).toMatch(/longer/);
  });

  it('refuses script tasks while scripts are off, and paths that leave the root', () => {
    expect(taskProblem({ type: 'script', script: 'a.sh' }, { scriptsEnabled: false })).toMatch(/SCHEDULER_SCRIPT_ROOT/);
    expect(taskProblem({ type: 'script' }, on)).toBe('task.script is required for a script task');
    for (const script of ['/bin/sh', '../x.sh', 'a/../../x.sh', 'a\\..\\x.sh', 'C:\\x.sh', 'a.sh\u0000']) {
      expect(taskProblem({ type: 'script', script }, on), script).toMatch(/^task\.script/);
    }
    expect(taskProblem({ type: 'script', script: 'a.sh', args: ['ok', 'bad\u0000'] }, on)).toBe('task.args[1] must not contain a NUL byte');
    expect(taskProblem({ type: 'script', script: 'a.sh', url: 'http://x/' }, on)).toMatch(/^task\.url belongs to an http task/);
  });
});
