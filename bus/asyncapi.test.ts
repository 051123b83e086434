import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Parser } from '@asyncapi/parser';
import { asyncApiDocument } from './asyncapi.ts';
import { INTERFACE_VERSION } from './interface-version.ts';
import { PUBLIC_EVENT_PREFIX, PUBLIC_EVENTS } from './public-events.ts';
import { subjects } from './subjects.ts';

const ERROR = 0; // @asyncapi/parser's diagnostic severities: 0 error, 1 warning, 2 information, 3 hint
const committed = () => JSON.parse(readFileSync(new URL('../docs/asyncapi.json', import.meta.url), 'utf8')) as unknown;

describe('the AsyncAPI document of the public events', () => {
  it('is a valid AsyncAPI 3.0 document with no error and no warning', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(asyncApiDocument(INTERFACE_VERSION)));
    expect(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address())
        .sort(),
    ).toEqual(PUBLIC_EVENTS.map((e) => e.subject.subject).sort());
  });

  it('would be refused by the parser if a channel pointed at a message that does not exist', async () => {
    const broken = asyncApiDocument(INTERFACE_VERSION) as { channels: Record<string, { messages: Record<string, unknown> }> };
    const first = Object.values(broken.channels)[0]!;
    first.messages = { nope: { $ref: '#/components/messages/nope' } };
    const { diagnostics } = await new Parser().parse(JSON.stringify(broken));
    expect(diagnostics.some((d) => d.severity === ERROR)).toBe(true);
  });

  it('is what docs/asyncapi.json holds (regenerate with `npm run asyncapi`)', () => {
    expect(committed()).toEqual(JSON.parse(JSON.stringify(asyncApiDocument(INTERFACE_VERSION))));
  });

  it('lists every event subject under suite.events.v1. and no other', () => {
    const events = Object.values(subjects).filter((s) => s.kind === 'event');
    const versioned = events
      .filter((s) => s.subject.startsWith(PUBLIC_EVENT_PREFIX))
      .map((s) => s.subject)
      .sort();
    expect(PUBLIC_EVENTS.map((e) => e.subject.subject).sort()).toEqual(versioned);
    expect(versioned).toEqual(
      expect.arrayContaining([
        'suite.events.v1.executions.appended',
        'suite.events.v1.revocation.revoked',
        'suite.events.v1.scheduler.event',
        'suite.events.v1.trust.changed',
      ]),
    );
  });

  it('describes each payload with the schema the bus validates the event with', () => {
    const doc = asyncApiDocument(INTERFACE_VERSION) as { components: { messages: Record<string, { payload: unknown }> } };
    for (const event of PUBLIC_EVENTS) expect(doc.components.messages[event.name]!.payload).toEqual(JSON.parse(JSON.stringify(event.subject.event)));
  });
});
