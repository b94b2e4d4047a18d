// @ts-check
// The contract's document as every compile writes it: the OpenAPI emitter's text, then the two things it has no
// option for, the `jsonSchemaDialect` and each deprecation's paragraph. `$onEmit` (emit.js) does it after the emitter
// in `tsp compile` as in `npm run generate` and `npm run dev`; the breaking-change rule's document declares the dialect too.
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { SCHEMA_DIALECT } from "../breaking/dialect.js";

export { SCHEMA_DIALECT };

/**
 * The emitted document with `jsonSchemaDialect: SCHEMA_DIALECT` after its `openapi:` line (where the specification
 * lists it); written into the text, so that the rest of the emitter's text stays as it wrote it.
 * @param {string} openapi
 * @returns {string}
 */
export function declareSchemaDialect(openapi) {
  const first = /^openapi: 3\.1\.\d+\n/.exec(openapi);
  if (!first) throw new Error("the emitted document does not start with `openapi: 3.1.x`: jsonSchemaDialect is OpenAPI 3.1's");
  const declared = /^jsonSchemaDialect: (.*)$/m.exec(openapi);
  if (declared) {
    if (declared[1] !== SCHEMA_DIALECT) throw new Error(`the emitter declared jsonSchemaDialect ${declared[1]}, not ${SCHEMA_DIALECT}`);
    return openapi;
  }
  return `${first[0]}jsonSchemaDialect: ${SCHEMA_DIALECT}\n${openapi.slice(first[0].length)}`;
}

/**
 * A deprecation as deprecation.js emits it beside `deprecated: true` (`x-deprecation`, and `x-sunset`, its sunset).
 * @typedef {{ reason: string, since?: string, successor?: string, sunset?: string }} DeprecationExtension
 */

/**
 * The last paragraph of a deprecated declaration's description: `Deprecated: <reason> Use <successor> instead.
 * (Deprecated since <since>; may be removed from <sunset>.)`, the successor and each date when written. Its words are
 * the typed client's hover's (deprecationNote in scripts/openapi-types.ts): what the docs page shows of it.
 * @param {DeprecationExtension} deprecation
 * @returns {string}
 */
export function deprecationParagraph({ reason, successor, since, sunset }) {
  const dates = [since && `deprecated since ${since}`, sunset && `may be removed from ${sunset}`].filter(Boolean).join("; ");
  return [`Deprecated: ${reason}`, successor && `Use ${successor} instead.`, dates && `(${dates[0].toUpperCase()}${dates.slice(1)}.)`].filter(Boolean).join(" ");
}

/**
 * The emitted document with each deprecated operation, parameter and property's description ending with its
 * deprecation's paragraph (deprecationParagraph), from its `x-deprecation` and `x-sunset`. TypeSpec keeps a doc comment
 * where no library may add to it, and @typespec/openapi3 writes descriptions as it reads them; so the paragraph is
 * added to the emitted text, written back as the emitter writes YAML (the same text where nothing is deprecated).
 * @param {string} openapi
 * @returns {string}
 */
export function describeDeprecations(openapi) {
  const document = parseYaml(openapi);
  let changed = false;
  /** @param {unknown} node */
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    const object = /** @type {Record<string, unknown>} */ (node);
    const extension = /** @type {DeprecationExtension | undefined} */ (object["x-deprecation"]);
    if (object.deprecated === true && typeof extension?.reason === "string") {
      const sunset = typeof object["x-sunset"] === "string" ? object["x-sunset"] : undefined;
      const paragraph = deprecationParagraph({ ...extension, sunset });
      const description = typeof object.description === "string" ? object.description : "";
      if (!description.endsWith(paragraph)) {
        object.description = description ? `${description}\n\n${paragraph}` : paragraph;
        changed = true;
      }
    }
    // Examples and extensions are data: a `deprecated` in them is a value, not a declaration.
    for (const [key, value] of Object.entries(object)) if (key !== "example" && key !== "examples" && !key.startsWith("x-")) visit(value);
  };
  visit(document);
  // @typespec/openapi3's own YAML options.
  return changed ? stringifyYaml(document, { singleQuote: true, aliasDuplicateObjects: false, lineWidth: 0, compat: "yaml-1.1" }) : openapi;
}

/**
 * The document as the contract's compile writes it, from the emitter's text: its deprecations' paragraphs, its dialect.
 * @param {string} openapi
 */
export const finishDocument = (openapi) => declareSchemaDialect(describeDeprecations(openapi));
