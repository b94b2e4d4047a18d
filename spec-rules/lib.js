// @ts-check
// The library's declaration: its name, its decorators' diagnostics and the state they keep (spec-rules/deprecation.js).
import { createTypeSpecLibrary, paramMessage } from "@typespec/compiler";

export const $lib = createTypeSpecLibrary({
  name: "docs-platform-spec-rules",
  diagnostics: {
    "invalid-date": {
      severity: "error",
      messages: { default: paramMessage`\`${"date"}\` is not a date: write it as YYYY-MM-DD (2027-01-31).` },
    },
  },
  state: {
    deprecatedSince: { description: "The date a deprecation takes effect (@deprecatedSince)." },
    sunset: { description: "The date a deprecated declaration may be removed (@sunset)." },
    successor: { description: "What replaces a deprecated declaration (@successor)." },
  },
});
