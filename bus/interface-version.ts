/**
 * The version of the suite's interface (spec, "Versioning": 1.1.0 is where `requiredScope` is
 * honoured; the client library is consumed with a caret range on it). It versions the contract —
 * the OpenAPI documents, the public events' AsyncAPI document, `client/` — not the package: a
 * breaking change to any of them bumps the major.
 */
export const INTERFACE_VERSION = '1.1.0';
