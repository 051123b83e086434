/**
 * Types that turn a listener's generated `paths` (openapi-typescript, src/generated/) into typed
 * calls: which paths have a method, what a call takes (path and query parameters, body) and what its
 * success answer is. Only types: nothing here exists at run time.
 */
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths of `P` that declare `M` (openapi-typescript writes `get?: never` for the others). */
export type PathsWith<P, M extends Method> = {
  [K in keyof P]: P[K] extends { [k in M]: infer O } ? ([O] extends [never] ? never : K) : never;
}[keyof P] &
  string;

export type OperationOf<P, K extends keyof P, M extends Method> = P[K] extends { [k in M]: infer O } ? O : never;

type Params<O> = O extends { parameters: infer X } ? X : object;

type PathPart<O> = Params<O> extends { path: infer X } ? ([X] extends [never] ? object : { path: X }) : object;

type QueryPart<O> =
  Params<O> extends { query: infer Q }
    ? [Q] extends [never]
      ? object
      : { query: Q }
    : Params<O> extends { query?: infer Q }
      ? [Exclude<Q, undefined>] extends [never]
        ? object
        : { query?: Exclude<Q, undefined> }
      : object;

type JsonOf<C> = C extends { content: { 'application/json': infer B } } ? B : C extends { content: { 'application/json; charset=utf-8': infer B } } ? B : never;

type BodyPart<O> = O extends { requestBody: infer R }
  ? [JsonOf<R>] extends [never]
    ? object
    : { body: JsonOf<R> }
  : O extends { requestBody?: infer R }
    ? [JsonOf<Exclude<R, undefined>>] extends [never]
      ? object
      : { body?: JsonOf<Exclude<R, undefined>> }
    : object;

/** Options of every call, beside its parameters. */
export interface CallOptions {
  /** Extra request headers (e.g. `idempotency-key`). */
  headers?: Record<string, string>;
  /** Aborts the call, retries included. */
  signal?: AbortSignal;
  /** Time allowed per attempt, in ms (default: the client's). */
  timeoutMs?: number;
}

/** What a call of operation `O` takes. */
export type CallInit<O> = PathPart<O> & QueryPart<O> & BodyPart<O> & CallOptions;

type Success = 200 | 201 | 202 | 204;
type TextOf<C> = C extends { content: { [media: string]: infer B } } ? B : undefined;

/** The body of the success answers of `O`: JSON where declared, else the text. */
export type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R & Success]: [JsonOf<R[S]>] extends [never] ? TextOf<R[S]> : JsonOf<R[S]> }[keyof R & Success]
  : unknown;

/** True when `CallInit<O>` has a required member, so the call needs its init argument. */
export type NeedsInit<O> = object extends PathPart<O> & QueryPart<O> & BodyPart<O> ? false : true;
