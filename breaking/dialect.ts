// The JSON Schema dialect the contract's document declares (spec-rules/document.js): written into it after the emitter by
// the compile's own emitter, and into the document the breaking-change rule takes from the program, so both compare alike.

export { SCHEMA_DIALECT } from '../spec-rules/document.js';
