import type { Connector } from '../../../core/connectors/index.ts';
import { githubConnector } from './github.ts';
import { httpConnector } from './http.ts';
import { postgresConnector } from './postgres.ts';
import { slackConnector } from './slack.ts';
import { webhookConnector } from './webhook.ts';

/** The built-in connectors, in the order GET /connectors lists them. */
export const BUILT_IN_CONNECTORS: readonly Connector[] = Object.freeze([webhookConnector, httpConnector, slackConnector, githubConnector, postgresConnector]);
