import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The alerting and recording rules (rules.yml) as Prometheus reads them: `promtool check rules`,
 * and their unit tests in promtool's own format (rules.test.yml). promtool must be installed
 * (Debian's `prometheus` package; CI installs it): without it these tests fail, they never skip.
 */

const HERE = import.meta.dirname;

function promtool(args: string[], cwd = HERE): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (run.error !== undefined) throw new Error(`promtool could not run (install Debian's prometheus package): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const scratch = mkdtempSync(join(tmpdir(), 'suite-rules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the Prometheus rules', () => {
  it('pass promtool check rules', () => {
    const run = promtool(['check', 'rules', 'rules.yml']);
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', () => {
    const run = promtool(['test', 'rules', 'rules.test.yml']);
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('have unit tests that catch a changed threshold: the stale-view alert at 100 s instead of 10 s fails them', () => {
    copyFileSync(join(HERE, 'rules.test.yml'), join(scratch, 'rules.test.yml'));
    const rules = readFileSync(join(HERE, 'rules.yml'), 'utf8');
    const changed = rules.replace('max by (instance) (suite_revocation_view_age_seconds) > 10', 'max by (instance) (suite_revocation_view_age_seconds) > 100');
    expect(changed).not.toBe(rules);
    writeFileSync(join(scratch, 'rules.yml'), changed);
    const run = promtool(['test', 'rules', 'rules.test.yml'], scratch);
    expect(run.status).toBe(1);
    expect(run.output).toContain('SuiteRevocationViewStale');
  });
});
