import type { FastifySchemaValidationError } from 'fastify';

/**
 * A schema error in words that say what to send (issue 36, item 10): "body is missing action (a
 * string)" rather than the validator's "must have required properties action", and for a union
 * the shapes it accepts rather than "must match a schema in anyOf". Fastify puts the part and path
 * in front ("body/proof ...").
 */
export function sayWhatToSend(
  error: FastifySchemaValidationError,
  errors: readonly FastifySchemaValidationError[],
  root: unknown,
): FastifySchemaValidationError {
  const node = at(root, error.schemaPath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = (params.requiredProperties as string[] | undefined) ?? [];
      const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      return { ...error, message: `is missing ${missing.map((name) => `${name} (${describe(props[name])})`).join(', ')}` };
    }
    case 'additionalProperties': {
      const extra = (params.additionalProperties as string[] | undefined) ?? [];
      const known = Object.keys((node as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      const accepted = known.length === 0 ? 'no fields' : `only ${known.join(', ')}`;
      return { ...error, message: `has ${extra.length === 1 ? 'a field' : 'fields'} it does not accept (${extra.join(', ')}); send ${accepted}` };
    }
    case 'boolean': {
      // `additionalProperties: false` reports the extra field itself first; its parent error says it better.
      const parent = errors.find((e) => e.keyword === 'additionalProperties');
      return parent === undefined ? error : sayWhatToSend(parent, errors, root);
    }
    case 'anyOf':
    case 'oneOf': {
      const branches = ((node as Record<string, unknown> | undefined)?.[error.keyword] as unknown[] | undefined) ?? [];
      const constants = branches.every((b) => typeof b === 'object' && b !== null && 'const' in b);
      return { ...error, message: `must be ${constants ? `one of ${branches.map(describe).join(', ')}` : branches.map(describe).join(', or ')}` };
    }
    case 'type':
      return { ...error, message: `must be ${describe(node)}` };
    default:
      return error;
  }
}

/** A schema in a few words: "a string of 1 to 256 characters", "an object with fields nonce, signature". */
export function describe(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return 'a value';
  const s = schema as Record<string, unknown>;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (Array.isArray(s.anyOf)) return s.anyOf.map(describe).join(' or ');
  switch (s.type) {
    case 'string':
      return `a string${range(s.minLength, s.maxLength, 'characters')}${s.format !== undefined ? ` (${String(s.format)})` : ''}`;
    case 'integer':
      return `an integer${range(s.minimum, s.maximum, '')}`;
    case 'number':
      return `a number${range(s.minimum, s.maximum, '')}`;
    case 'boolean':
      return 'true or false';
    case 'array':
      return `an array of ${plural(describe(s.items))}${range(s.minItems, s.maxItems, 'items')}`;
    case 'object': {
      const props = Object.keys((s.properties as Record<string, unknown> | undefined) ?? {});
      return props.length === 0 ? 'an object' : `an object with fields ${props.join(', ')}`;
    }
    case 'null':
      return 'null';
    default:
      return 'a value';
  }
}

function range(min: unknown, max: unknown, unit: string): string {
  const u = unit === '' ? '' : ` ${unit}`;
  if (typeof min === 'number' && typeof max === 'number') return ` of ${min} to ${max}${u}`.replace(' of ', unit === '' ? ' from ' : ' of ');
  if (typeof max === 'number') return ` of at most ${max}${u}`;
  if (typeof min === 'number' && min > 0) return ` of at least ${min}${u}`;
  return '';
}

const plural = (phrase: string) => phrase.replace(/^an? /, '').replace(/^(string|integer|number|object|array)/, '$1s');

/** The schema node a validator's `schemaPath` ("#/properties/proof/anyOf/0") points at. */
function at(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
