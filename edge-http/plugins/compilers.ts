import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { serializerCompiler } from '../serializer.ts';
import { validatorCompiler } from '../validation.ts';
import { PART } from './names.ts';

/**
 * Our validator and serializer, and JSON as the only body type. A route takes the compilers in force
 * when it is registered, so every part that adds a route depends on this one. A route that needs
 * another body type (the billing webhook's raw body) adds its parser in its own plugin.
 */
export const compilersPlugin = fp(
  async (app: FastifyInstance) => {
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    app.removeContentTypeParser('text/plain');
  },
  { name: PART.compilers },
);
