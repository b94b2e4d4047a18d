// @ts-check
// The JSON Schema dialect the contract's document declares: written into it after the emitter by the compile's own
// emitter (spec-rules/document.js), and into the document the breaking-change rule takes from the program, so both
// compare alike. JavaScript, so that the TypeSpec library imports it as it is.

/**
 * The JSON Schema dialect the document's schemas are written in: OpenAPI 3.1's base dialect (JSON Schema 2020-12 with
 * OpenAPI's vocabulary: `discriminator`, `xml`, `externalDocs`, `example`). OpenAPI 3.1 makes it the default, but tools
 * do not all apply the default: Prism reads the schemas of a 3.1 document that does not declare its dialect as
 * draft-07, which has no `unevaluatedProperties`, the keyword that closes the contract's objects, and so lets an
 * unknown field through. Declared, it is read as written. Changing it is a change of the contract that the
 * breaking-change gate judges (`schema-dialect-…`, breaking/README.md).
 */
export const SCHEMA_DIALECT = "https://spec.openapis.org/oas/3.1/dialect/base";
