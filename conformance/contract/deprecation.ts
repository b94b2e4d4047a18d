// A deprecation as the contract writes it, for the server and the recorders (which import conformance/, not compare/):
// compare/deprecation.ts's reader, where the gate reads it too.
export { type Deprecation, deprecationOf, deprecationText, startOfDay } from '../../compare/deprecation.ts';
