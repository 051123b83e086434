import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createBus, createMemoryNetwork, subjects } from '../../bus/index.ts';
import { MapVerifier, RecordingAudit } from '../../testing/edge-doubles.ts';
import { bearerAuthenticator, createMcpServer } from '../../edge-mcp/index.ts';
import { tokenTools } from './mcp-tools.ts';

/**
 * The MCP server's capability check, before any bus request: authentication of each message,
 * discovery filtered by scope, refusals audited. (Calls that reach actors, and their traces, are
 * tested against a real suite: integration/suite/mcp-http.test.ts, integration/mcp-stdio.test.ts.)
 */

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An audit sink whose durability the test decides: how often a decision's answer waited for it. */
class DurableAudit extends RecordingAudit {
  waits = 0;
  failing = false;
  async durable(): Promise<void> {
    this.waits++;
    if (this.failing) throw new Error('the audit trail is down and there is no journal');
  }
}

async function session(verifier: MapVerifier, authorization: string | undefined, audit: RecordingAudit = new RecordingAudit()) {
  const bus = createBus(createMemoryNetwork().connect());
  const validations: unknown[] = [];
  bus.serve(subjects.tokenValidate, async (request) => {
    validations.push(request);
    return { ok: true, value: { valid: false as const, error: 'TOKEN_INVALID' } };
  });
  const server = createMcpServer({
    bus,
    tools: tokenTools(),
    authenticate: bearerAuthenticator(verifier, authorization),
    audit,
    logger: pino({ level: 'silent' }),
    version: 'test',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
    await bus.drain();
  });
  return { client, audit, validations };
}

describe('bearerAuthenticator', () => {
  const verifier = new MapVerifier().grant('good', { sub: 'agent', scope: ['audit:read'] });

  it('refuses a missing header with TOKEN_MISSING and a malformed one with TOKEN_INVALID', async () => {
    expect(await bearerAuthenticator(verifier, undefined)()).toMatchObject({ ok: false, error: { code: 'TOKEN_MISSING' } });
    expect(await bearerAuthenticator(verifier, 'Basic abc')()).toMatchObject({ ok: false, error: { code: 'TOKEN_INVALID' } });
  });

  it('fails closed with REVOCATION_UNAVAILABLE while the revocation view cannot be trusted', async () => {
    const stale = new MapVerifier().grant('good', { sub: 'agent', scope: ['audit:read'] });
    stale.setRevocationTrusted(false);
    expect(await bearerAuthenticator(stale, 'Bearer good')()).toMatchObject({ ok: false, error: { code: 'REVOCATION_UNAVAILABLE' } });
  });

  it('gives the principal of a token that verifies', async () => {
    expect(await bearerAuthenticator(verifier, 'Bearer good')()).toMatchObject({ ok: true, principal: { sub: 'agent', scope: ['audit:read'] } });
  });
});

describe('createMcpServer', () => {
  it('lists only the tools the scopes grant, wildcards matched segment by segment', async () => {
    const verifier = new MapVerifier().grant('t', { sub: 'agent', scope: ['auth:token:*'] });
    const { client } = await session(verifier, 'Bearer t');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['mint_token', 'validate_token']);
  });

  it('refuses to start a session while revocations cannot be trusted', async () => {
    const verifier = new MapVerifier().grant('t', { sub: 'agent', scope: ['*'] });
    verifier.setRevocationTrusted(false);
    await expect(session(verifier, 'Bearer t')).rejects.toThrow(/REVOCATION_UNAVAILABLE/);
  });

  it('lists nothing and refuses every call once revocations cannot be trusted mid-session, auditing the denial', async () => {
    const verifier = new MapVerifier().grant('t', { sub: 'agent', scope: ['*'] });
    const { client, audit } = await session(verifier, 'Bearer t');
    verifier.setRevocationTrusted(false);
    expect((await client.listTools()).tools).toEqual([]);
    await expect(client.callTool({ name: 'read_audit', arguments: {} })).rejects.toThrow(/REVOCATION_UNAVAILABLE/);
    expect(audit.decisions).toEqual([
      expect.objectContaining({
        subject: 'anonymous',
        action: 'audit:read',
        resource: 'mcp tools/call read_audit',
        result: 'deny',
        reason: expect.stringMatching(/^REVOCATION_UNAVAILABLE: .*nothing was done/),
      }),
    ]);
  });

  it('refuses a call beyond the scope with the scope in the error data, before validating its arguments', async () => {
    const verifier = new MapVerifier().grant('t', { sub: 'agent', scope: ['execution:read'] });
    const { client, audit } = await session(verifier, 'Bearer t');
    const refused = await client.callTool({ name: 'mint_token', arguments: { nonsense: true } }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: -32001, data: { code: 'CAPABILITY_INSUFFICIENT', requiredScope: 'auth:token:create' } });
    expect(audit.decisions).toEqual([
      expect.objectContaining({ subject: 'agent', result: 'deny', reason: 'CAPABILITY_INSUFFICIENT: token does not grant auth:token:create' }),
    ]);
  });

  it('answers a call only once the audit entry of its decision is durable, and refuses it, nothing done, when that fails', async () => {
    const verifier = new MapVerifier().grant('t', { sub: 'agent', scope: ['auth:token:validate'] });
    const audit = new DurableAudit();
    const { client, validations } = await session(verifier, 'Bearer t', audit);
    // No chain writer serves this bus, so the call's trace fails after the call: the call itself ran.
    await client.callTool({ name: 'validate_token', arguments: { token: 'x' } }).catch(() => undefined);
    expect(audit.waits).toBe(1);
    expect(validations).toHaveLength(1);
    audit.failing = true;
    const refused = await client.callTool({ name: 'validate_token', arguments: { token: 'x' } }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: -32001, data: { code: 'SERVICE_UNAVAILABLE' } });
    expect(validations).toHaveLength(1);
    // A refusal did nothing either: it waits for its entry too, and is sent whatever comes of it.
    const denied = await client.callTool({ name: 'mint_token', arguments: {} }).catch((err: unknown) => err);
    expect(denied).toMatchObject({ data: { code: 'CAPABILITY_INSUFFICIENT' } });
    expect(audit.waits).toBe(3);
  });
});
