import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePolicy, GENERATOR, MAX_SCOPES } from './index.ts';

const scopesOf = (description: string) => generatePolicy({ description }).scopes;
const rulesOf = (description: string) => generatePolicy({ description }).policy.rules;

describe('generatePolicy: determinism', () => {
  const samples = [
    'The agent can read the CRM and update calendar events. It may send no more than 50 emails per day, only during business hours. Deleting tickets requires manager approval.',
    'Read tickets but never delete them. Valid for 2 hours.',
    'Refunds over $100 must be approved by finance. Read payments and create refunds.',
    'hello world',
  ];

  it('gives byte-identical output for the same input, every time', () => {
    for (const description of samples) {
      const first = JSON.stringify(generatePolicy({ description, subject: 'agent-7' }));
      for (let i = 0; i < 5; i++) expect(JSON.stringify(generatePolicy({ description, subject: 'agent-7' }))).toBe(first);
    }
  });

  it('gives byte-identical output for any text, including random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (description) => {
        expect(JSON.stringify(generatePolicy({ description }))).toBe(JSON.stringify(generatePolicy({ description })));
      }),
      { numRuns: 300 },
    );
  });

  it('versions the policy by its content: same content same version, different content another', () => {
    const a = generatePolicy({ description: 'Read tickets.' }).policy;
    const b = generatePolicy({ description: 'The agent may view the tickets!' }).policy;
    const c = generatePolicy({ description: 'Read tickets and contacts.' }).policy;
    expect(a.scopes).toEqual(b.scopes);
    expect(a.policyVersion).toBe(b.policyVersion);
    expect(a.policyVersion).not.toBe(c.policyVersion);
    expect(a.policyVersion).toMatch(/^[0-9a-f]{16}$/);
    expect(a.policyRef).toBe(`generated/${a.policyVersion.slice(0, 12)}`);
    expect(a.generator).toBe(GENERATOR);
    const named = generatePolicy({ description: 'Read tickets.', subject: 'agent-7' }).policy;
    expect(named).toMatchObject({ policyRef: 'generated/agent-7', subject: 'agent-7' });
    expect(named.policyVersion).not.toBe(a.policyVersion);
  });
});

describe('generatePolicy: scopes from descriptions', () => {
  const table: Array<[string, string[]]> = [
    ['Read the CRM.', ['crm:read']],
    ['The agent can view, list and search support tickets', ['tickets:read']],
    ['read the crm and update calendar events', ['calendar:write', 'crm:read']],
    ['Read and update invoices', ['invoices:read', 'invoices:write']],
    ['Send emails to customers', ['email:send']],
    ['Draft e-mails; delete old files', ['email:write', 'files:delete']],
    ['Manage contacts', ['contacts:read', 'contacts:write']],
    ['Full access to the repos', ['repos:delete', 'repos:read', 'repos:write']],
    ['Run reports and read customer records', ['records:read', 'reports:execute']],
    ['CRM: read only', ['crm:read']],
    ['Tickets can be read but not deleted', ['tickets:read']],
    ['Read tickets but never delete them', ['tickets:read']],
    ['Read tickets and never delete them', ['tickets:read']],
    ['Read the crm and update it', ['crm:read', 'crm:write']],
    ['Do not read emails. Read the calendar.', ['calendar:read']],
    ['Read tickets and delete tickets. Deleting tickets is not allowed.', ['tickets:read']],
    ['Read all tickets', ['tickets:read']],
    ['Read invoices then email the customer', ['invoices:read']],
    ['Read reports daily', ['reports:read']],
    ['hello world', []],
  ];
  it.each(table)('"%s" gives %j', (description, scopes) => {
    expect(scopesOf(description)).toEqual(scopes);
  });

  it('says which phrase produced which scope, and which phrases it did not understand', () => {
    const r = generatePolicy({ description: 'Read the CRM and update calendar events. Juggle the oranges. Update.' });
    expect(r.matched).toEqual([
      { phrase: 'read the crm', kind: 'grant', produces: ['crm:read'] },
      { phrase: 'update calendar events', kind: 'grant', produces: ['calendar:write'] },
    ]);
    expect(r.unmatched).toEqual([
      { phrase: 'juggle the oranges', reason: 'no action, resource or condition recognised' },
      { phrase: 'update', reason: expect.stringContaining('names no resource') },
    ]);
  });

  it('refuses a pronoun with nothing before it, and a noun that cannot be a scope segment', () => {
    expect(generatePolicy({ description: 'Delete them.' }).unmatched[0]?.reason).toMatch(/refers to no resource/);
    const r = generatePolicy({ description: 'Read the cafés' });
    expect(r.scopes).toEqual([]);
    expect(r.unmatched[0]?.reason).toMatch(/scope segment/);
  });
});

describe('generatePolicy: wildcards', () => {
  it('never produces * unless the text says everything or all', () => {
    const words = [
      'read',
      'write',
      'delete',
      'send',
      'run',
      'manage',
      'full',
      'access',
      'any',
      'anything',
      'the',
      'crm',
      'tickets',
      'and',
      'or',
      'not',
      'never',
      'to',
      'them',
      'it',
      'email',
      'do',
      'actions',
      'permissions',
      'invoices',
      ',',
      'only',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 30 }), (picked) => {
        const { scopes, policy } = generatePolicy({ description: picked.join(' ') });
        for (const s of [...scopes, ...policy.scopes]) expect(s.split(':')).not.toContain('*');
      }),
      { numRuns: 2000 },
    );
    expect(scopesOf('read anything, read them')).toEqual([]);
  });

  it('grants a wildcard for an explicit "everything" or "all", with a warning', () => {
    const cases: Array<[string, string]> = [
      ['Read everything', '*:read'],
      ['read all', '*:read'],
      ['All actions on the crm', 'crm:*'],
      ['The agent can do everything', '*'],
    ];
    for (const [description, scope] of cases) {
      const r = generatePolicy({ description });
      expect(r.scopes, description).toEqual([scope]);
      expect(r.warnings.join(' '), description).toContain(`"${scope}" is a wildcard`);
    }
  });

  it('does not read "anything" as everything', () => {
    const r = generatePolicy({ description: 'Read anything' });
    expect(r.scopes).toEqual([]);
    expect(r.unmatched[0]?.reason).toMatch(/everything/);
  });

  it('keeps a deny under a wildcard as a rule for the evaluator, and says the scope cannot carve it out', () => {
    const r = generatePolicy({ description: 'Read everything. Never read payments.' });
    expect(r.scopes).toEqual(['*:read']);
    expect(r.policy.rules).toEqual([{ id: 'rule-1', kind: 'deny', scopes: ['payments:read'], appliesTo: ['*:read'] }]);
    expect(r.warnings.join(' ')).toContain('cannot carve out an exception');
  });
});

describe('generatePolicy: governance rules', () => {
  it('reads a rate limit and attaches it to the scopes of what it counts', () => {
    const r = generatePolicy({ description: 'Read tickets and send no more than 50 emails per day.' });
    expect(r.scopes).toEqual(['email:send', 'tickets:read']);
    expect(r.policy.rules).toEqual([{ id: 'rule-1', kind: 'rate-limit', max: 50, per: 'day', of: 'emails', appliesTo: ['email:send'] }]);
  });

  it('reads count limits, amount limits in minor units, and thousands separators', () => {
    expect(rulesOf('Create at most 5 tickets')).toEqual([{ id: 'rule-1', kind: 'count-limit', max: 5, of: 'tickets', appliesTo: ['tickets:write'] }]);
    expect(rulesOf('Create payments up to $1,250.50 a week')).toEqual([
      { id: 'rule-1', kind: 'amount-limit', amount: 125050, currency: 'USD', per: 'week', appliesTo: ['payments:write'] },
    ]);
    expect(rulesOf('Send up to 1,000 emails hourly')[0]).toMatchObject({ kind: 'rate-limit', max: 1000, per: 'hour' });
  });

  it('reads business hours, outside hours, weekdays with clock times, and a time zone', () => {
    const business = generatePolicy({ description: 'Send emails only during business hours.' });
    expect(business.policy.rules[0]).toEqual({
      id: 'rule-1',
      kind: 'time-window',
      mode: 'within',
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      from: '09:00',
      to: '17:00',
      timezone: null,
      appliesTo: ['email:send'],
    });
    expect(business.warnings.join(' ')).toContain('names no time zone');
    expect(rulesOf('Run backups outside business hours')[0]).toMatchObject({ mode: 'outside' });
    expect(rulesOf('Read tickets on weekdays between 8:30am and 6pm UTC')[0]).toEqual({
      id: 'rule-1',
      kind: 'time-window',
      mode: 'within',
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      from: '08:30',
      to: '18:00',
      timezone: 'UTC',
      appliesTo: ['tickets:read'],
    });
  });

  it('reads approval with its approver and threshold, and a waived approval makes no rule', () => {
    expect(rulesOf('Delete tickets only with manager approval. Read the crm.')).toEqual([
      { id: 'rule-1', kind: 'approval', approver: 'manager', appliesTo: ['tickets:delete'] },
    ]);
    expect(rulesOf('Refunds over $100 must be approved by finance. Read payments and create refunds. Read the crm.')).toEqual([
      { id: 'rule-1', kind: 'approval', approver: 'finance', above: { amount: 10000, currency: 'USD' }, appliesTo: ['payments:read', 'payments:write'] },
    ]);
    expect(rulesOf('Read tickets. Requires approval.')).toEqual([{ id: 'rule-1', kind: 'approval', appliesTo: ['tickets:read'] }]);
    const waived = generatePolicy({ description: 'Read tickets, no approval needed' });
    expect(waived.policy.rules).toEqual([]);
    expect(waived.scopes).toEqual(['tickets:read']);
    expect(waived.matched.map((m) => m.kind)).toEqual(['grant', 'waiver']);
  });

  it('suggests the shortest lifetime named, and ignores one longer than a token may live', () => {
    expect(generatePolicy({ description: 'Read tickets for 2 hours' }).policy.expiresIn).toBe('2h');
    expect(generatePolicy({ description: 'Read tickets for 2 weeks. Valid for a day.' }).policy.expiresIn).toBe('1d');
    const long = generatePolicy({ description: 'Read tickets for 400 days' });
    expect(long.policy.expiresIn).toBeUndefined();
    expect(long.warnings.join(' ')).toContain('not a token lifetime');
  });

  it('explains the result in words built from the fields', () => {
    const r = generatePolicy({ description: 'Read tickets and send no more than 50 emails per day. Juggle.' });
    expect(r.explanation).toBe(
      'Grants 2 scopes: email:send, tickets:read. 1 governance rule: rule-1 at most 50 emails per day (email:send). ' +
        '1 phrase not understood. Derived by fixed rules (suite-policy-rules/1), not by a model: review before issuing.',
    );
  });
});

describe('generatePolicy: bounds', () => {
  it(`keeps at most ${MAX_SCOPES} scopes, the first in sorted order, and warns`, () => {
    const nouns = Array.from({ length: 60 }, (_, i) => `thing${String(i).padStart(2, '0')}`);
    const r = generatePolicy({ description: `Read and update ${nouns.join(', ')}.` });
    expect(r.scopes).toHaveLength(MAX_SCOPES);
    expect(r.scopes).toEqual([...r.scopes].sort());
    expect(r.scopes[0]).toBe('thing00:read');
    expect(r.warnings.join(' ')).toContain('120 scopes found');
  });

  it('handles the longest description allowed in well under a second', () => {
    const description = 'Read the crm, update calendar events and send up to 5 emails per hour during business hours. '.repeat(45).slice(0, 4000);
    const started = performance.now();
    const r = generatePolicy({ description });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.scopes).toEqual(['calendar:write', 'crm:read', 'email:send']);
  });
});
