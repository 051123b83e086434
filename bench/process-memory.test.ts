import { describe, expect, it } from 'vitest';
import { roleOf } from './process-memory.ts';

describe('the role of a process of the suite tree (bench/memory.ts)', () => {
  it('names the Node process, the postmaster by its binary, and every Postgres process by its title', () => {
    expect(roleOf('/usr/bin/node\0cli/suite.ts\0start\0')).toBe('node');
    expect(roleOf('/x/native/bin/postgres\0-D\0/d/postgres\0-p\x005432\0')).toBe('postmaster');
    expect(roleOf('postgres: checkpointer ')).toBe('checkpointer');
    expect(roleOf('postgres: io worker 2')).toBe('io worker');
    expect(roleOf('postgres: suite postgres [local] idle')).toBe('client backend');
    expect(roleOf('postgres: suite postgres 127.0.0.1(51234) INSERT')).toBe('client backend');
    expect(roleOf('postgres: autovacuum worker postgres')).toBe('autovacuum worker');
    expect(roleOf('postgres: parallel worker for PID 123')).toBe('parallel worker');
  });
});
