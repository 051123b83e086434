import { Type } from 'typebox';
import { requestSubject } from '../../bus/index.ts';
import { CallerSchema } from '../../bus/index.ts';
import { OAuthClientSchema } from './clients.ts';
import { GrantLogEntrySchema } from './grant-log.ts';
import { TrustedIssuersViewSchema } from './issuers-view.ts';

/**
 * The OAuth actor's subjects (queue `oauth`). The edge forwards what it received (form, headers, the URL
 * it was reached at); everything with state (clients, replay caches, refresh families) is decided by
 * the actor. Answers are HTTP-shaped: OAuth endpoints answer RFC bodies, not the suite's error shape.
 */
const Form = Type.Record(Type.String(), Type.String({ maxLength: 16_384 }));
export const HttpAnswer = Type.Object({
  status: Type.Integer(),
  body: Type.Record(Type.String(), Type.Unknown()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
});

const EndpointRequest = Type.Object({
  form: Form,
  authorization: Type.Optional(Type.String({ maxLength: 16_384 })),
  dpop: Type.Optional(Type.String({ maxLength: 16_384 })),
  /** The issuer and the endpoint's URL as this request reached them. */
  issuer: Type.String(),
  url: Type.String(),
});

/** A page for a person's browser: HTML, or a redirect (headers.location), or an OAuth error body. */
export const PageAnswer = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  html: Type.Optional(Type.String()),
  body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

const AuthorizeRequest = Type.Object({
  query: Form,
  issuer: Type.String(),
  /** The browser said it loads the page into a frame (Sec-Fetch-Dest). */
  framed: Type.Optional(Type.Boolean()),
});

/** The consent form as posted, with the person the edge signed in (or why it could not). */
const ConsentRequest = Type.Object({
  requestId: Type.String({ maxLength: 256 }),
  csrf: Type.String({ maxLength: 256 }),
  decision: Type.String({ maxLength: 16 }),
  scope: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100 }),
  lifetime: Type.Optional(Type.String({ maxLength: 16 })),
  approver: Type.Optional(CallerSchema),
  signInProblem: Type.Optional(Type.String({ maxLength: 200 })),
  issuer: Type.String(),
});

const DevicePageRequest = Type.Object({
  userCode: Type.Optional(Type.String({ maxLength: 64 })),
  issuer: Type.String(),
  framed: Type.Optional(Type.Boolean()),
});

const RegisterRequest = Type.Object({
  metadata: Type.Record(Type.String(), Type.Unknown()),
  /** The initial access token's holder, when one was presented and verified by the edge. */
  registrar: Type.Optional(CallerSchema),
  issuer: Type.String(),
});

export const oauthSubjects = {
  token: requestSubject('suite.oauth.token', EndpointRequest, HttpAnswer),
  introspect: requestSubject('suite.oauth.introspect', EndpointRequest, HttpAnswer),
  revoke: requestSubject('suite.oauth.revoke', EndpointRequest, HttpAnswer),
  authorize: requestSubject('suite.oauth.authorize', AuthorizeRequest, PageAnswer),
  consent: requestSubject('suite.oauth.consent', ConsentRequest, PageAnswer),
  devicePage: requestSubject('suite.oauth.device-page', DevicePageRequest, PageAnswer),
  deviceAuthorization: requestSubject('suite.oauth.device-authorization', EndpointRequest, HttpAnswer),
  register: requestSubject('suite.oauth.register', RegisterRequest, HttpAnswer),
  listClients: requestSubject(
    'suite.oauth.list-clients',
    Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500 }), offset: Type.Integer({ minimum: 0 }), caller: CallerSchema }),
    Type.Object({ clients: Type.Array(OAuthClientSchema) }),
  ),
  /** An edge's DPoP proof, first use across every edge process (edge-http/dpop.ts; the durable jti table). */
  dpopFirstUse: requestSubject(
    'suite.oauth.dpop-first-use',
    Type.Object({ jkt: Type.String({ maxLength: 64 }), jti: Type.String({ maxLength: 256 }), exp: Type.Integer() }),
    Type.Object({ first: Type.Boolean() }),
  ),
  listIssuers: requestSubject('suite.oauth.list-issuers', Type.Object({ caller: CallerSchema }), TrustedIssuersViewSchema),
  listGrants: requestSubject(
    'suite.oauth.list-grants',
    Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500 }), caller: CallerSchema }),
    Type.Object({ grants: Type.Array(GrantLogEntrySchema) }),
  ),
  deleteClient: requestSubject(
    'suite.oauth.delete-client',
    Type.Object({ clientId: Type.String({ maxLength: 256 }), caller: CallerSchema }),
    Type.Object({ deleted: Type.Boolean(), clientId: Type.String() }),
  ),
};
