import type { TSchema } from 'typebox';
import { PUBLIC_EVENTS } from './public-events.ts';

/**
 * The AsyncAPI 3.0 document of the public events (docs/EVENTS.md), built from the same TypeBox
 * schemas the bus validates every message with, so the document cannot drift from the wire.
 * `cli/suite.ts asyncapi` prints it; docs/asyncapi.json is its committed copy (a test keeps the two
 * equal and validates it with @asyncapi/parser).
 */
export function asyncApiDocument(version: string): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const event of PUBLIC_EVENTS) {
    const { name } = event;
    messages[name] = {
      name,
      title: event.title,
      summary: event.title,
      description: event.description,
      contentType: 'application/json',
      headers: TraceHeaders,
      payload: plainSchema(event.subject.event),
    };
    channels[name] = {
      address: event.subject.subject,
      title: event.title,
      description: `Prefixed with "<SUITE_BUS_NAMESPACE>." when the deployment sets a namespace.`,
      messages: { [name]: { $ref: `#/components/messages/${name}` } },
    };
    operations[`receive${name[0]!.toUpperCase()}${name.slice(1)}`] = {
      action: 'receive',
      title: `Consume: ${event.title}`,
      summary: `An internal service subscribes to ${event.subject.subject}.`,
      channel: { $ref: `#/channels/${name}` },
      messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Agent Authority Suite: public events',
      version,
      description:
        "The events an internal service may consume from the suite's NATS bus (docs/EVENTS.md). " +
        'Subjects under suite.events.v1. are a contract: fields may be added within v1 (ignore fields you do not know); ' +
        'a breaking change is published on a new v2 subject beside v1 for at least one minor release. ' +
        "Every other subject is internal. Delivery is NATS core: at most once, no replay; the execution chain's export is the replay.",
      license: { name: 'Proprietary' },
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: '127.0.0.1:4222',
        protocol: 'nats',
        description:
          "A deployment's NATS (SUITE_NATS_URL). Consumers connect with a user that may subscribe to suite.events.v1.> and nothing else (docs/EVENTS.md, compose/nats-auth.conf).",
        security: [{ $ref: '#/components/securitySchemes/natsUser' }],
      },
    },
    channels,
    operations,
    components: {
      messages,
      securitySchemes: {
        natsUser: { type: 'userPassword', description: "A NATS user of the deployment's authorization block (docs/EVENTS.md)." },
      },
    },
  };
}

/** W3C trace context travels in NATS headers when the publisher traces (docs/OBSERVABILITY.md). */
const TraceHeaders = {
  type: 'object',
  properties: {
    traceparent: { type: 'string', description: 'W3C Trace Context of the publishing span, when traced.' },
    tracestate: { type: 'string' },
  },
};

/** The schema as plain JSON (TypeBox keeps its own markers on symbol keys, which JSON drops). */
function plainSchema(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}
