/**
 * RFC 8693 §4.4: a subject token's `may_act` claim names the one party allowed to act for its subject.
 * When an exchange names an actor, that actor must be the party named; without an actor nobody acts
 * for the subject and the claim does not apply. With `iss`, the actor must come from that issuer with
 * that `sub` (the suite's own issuer for a suite token); without it, `sub` is compared with the actor's
 * suite subject (`<iss>#<sub>` for an outside actor), or with an outside actor's own `sub` when it comes
 * from the subject token's issuer, whose names the claim was written in.
 */
export interface ActingParty {
  /** The actor's subject as the suite names it: a suite token's `sub`, or `<iss>#<sub>`. */
  readonly subject: string;
  /** The issuer that vouched for the actor: the suite's own issuer for a suite token. */
  readonly issuer: string;
  /** The actor's `sub` as its issuer wrote it (equal to `subject` for a suite token). */
  readonly externalSub: string;
}

/** Why `actor` may not act under `mayAct` (the claim as decoded, untrusted in shape), or undefined when it may. */
export function mayActRefusal(mayAct: unknown, subjectIssuer: string, actor: ActingParty): string | undefined {
  if (mayAct === undefined) return undefined;
  if (typeof mayAct !== 'object' || mayAct === null || Array.isArray(mayAct)) return "the subject_token's may_act claim is not an object";
  const { sub, iss } = mayAct as Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '' || (iss !== undefined && typeof iss !== 'string'))
    return "the subject_token's may_act claim needs a sub (and iss, if any) as strings";
  const named =
    iss !== undefined
      ? actor.issuer === iss && actor.externalSub === sub
      : actor.subject === sub || (actor.issuer === subjectIssuer && actor.externalSub === sub);
  return named ? undefined : "the actor is not the party the subject_token's may_act claim allows to act for it";
}
