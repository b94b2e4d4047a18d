// breaking/check.ts
import { existsSync as existsSync2 } from "node:fs";
import path2 from "node:path";
import { parseArgs } from "node:util";

// breaking/pointer.ts
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function escape(part) {
  return String(part).replace(/~/g, "~0").replace(/\//g, "~1");
}
function unescape(part) {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}
function child(path3, ...parts) {
  return `${path3}/${parts.map(escape).join("/")}`;
}
function resolvePointer(document, pointer) {
  if (pointer === "#" || pointer === "#/") return document;
  if (!pointer.startsWith("#/")) return void 0;
  let node = document;
  for (const raw of pointer.slice(2).split("/")) {
    const part = unescape(decodeURIComponent(raw));
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = Object.hasOwn(node, part) ? node[part] : void 0;
    else return void 0;
  }
  return node;
}
function segments(pointer) {
  return pointer.replace(/^#\/?/, "").split("/").filter(Boolean).map(unescape);
}
function componentOf(pointer) {
  const [root, kind, name] = segments(pointer);
  if (root !== "components" || !kind || name === void 0) return void 0;
  return kind === "schemas" ? name : `${kind}/${name}`;
}
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

// breaking/rules.ts
function isBreaking(severity) {
  return severity === "breaking-client" || severity === "breaking-implementation";
}
var SCHEMA_CONTEXTS = [
  "request-property",
  "request-parameter",
  "response-property",
  "response-header"
];
function directionOf(context) {
  return context.startsWith("request") ? "request" : "response";
}
var BC = "breaking-client";
var BI = "breaking-implementation";
var SCALAR_KINDS = {
  "type-changed": {
    example: "`type: string` \u2192 `type: integer`",
    request: { severity: BC, summary: "a type that was accepted no longer is", action: "Send values of the new type." },
    response: {
      severity: BC,
      summary: "the value may now be of a type it could not be before",
      action: "Read values of the new type."
    }
  },
  "type-widened": {
    example: "`type: integer` \u2192 `type: number`",
    request: {
      severity: BI,
      summary: "values of more types are accepted",
      action: "Implementations must accept and handle values of the added types."
    }
  },
  "type-narrowed": {
    example: "`type: number` \u2192 `type: integer`",
    response: {
      severity: BI,
      summary: "fewer types may be answered",
      action: "Implementations must answer only values of the remaining types."
    }
  },
  "became-nullable": {
    example: '`type: string` \u2192 `type: [string, "null"]` (or `anyOf` with `type: null`)',
    request: { severity: BI, summary: "`null` is now accepted", action: "Implementations must accept `null` and handle it." },
    response: { severity: BC, summary: "the value may now be `null`", action: "Handle `null` where you read the value." }
  },
  "became-not-nullable": {
    example: '`type: [string, "null"]` \u2192 `type: string`',
    request: { severity: BC, summary: "`null` is no longer accepted", action: "Stop sending `null`; leave the field out or send a value." },
    response: { severity: BI, summary: "the value may no longer be `null`", action: "Implementations must not answer `null`." }
  },
  "format-added": {
    example: "`type: string` \u2192 `type: string, format: uri`",
    request: { severity: BC, summary: "values must now match a format", action: "Send values in the new format." },
    response: { severity: BI, summary: "values must now match a format", action: "Implementations must answer values in the new format." }
  },
  "format-removed": {
    example: "`format: date-time` removed",
    request: {
      severity: BI,
      summary: "values of any format are accepted",
      action: "Implementations must accept values that do not match the old format."
    },
    response: { severity: BC, summary: "values no longer follow a format", action: "Stop relying on the old format when reading." }
  },
  "format-changed": {
    example: "`format: date-time` \u2192 `format: date`",
    request: { severity: BC, summary: "values must match another format", action: "Send values in the new format." },
    response: { severity: BC, summary: "values follow another format", action: "Read values in the new format." }
  },
  "enum-value-added": {
    example: "`enum: [website]` \u2192 `enum: [website, git]`",
    request: {
      severity: BI,
      summary: "a new value is accepted",
      action: "Implementations must handle the new value (an exhaustive switch over the values fails to compile or falls through)."
    },
    response: {
      severity: "warning",
      summary: "a new value may be answered",
      action: "Handle the new value where you switch over the values."
    }
  },
  "enum-value-removed": {
    example: "`enum: [a, b]` \u2192 `enum: [a]`",
    request: { severity: BC, summary: "a value is no longer accepted", action: "Stop sending the removed value." },
    response: { severity: BI, summary: "a value may no longer be answered", action: "Implementations must stop answering the removed value." }
  },
  "enum-introduced": {
    example: "`type: string` \u2192 `type: string, enum: [a, b]`",
    request: { severity: BC, summary: "only listed values are accepted", action: "Send one of the listed values." },
    response: { severity: BI, summary: "only listed values may be answered", action: "Implementations must answer only listed values." }
  },
  "enum-dropped": {
    example: "`enum: [a, b]` \u2192 `type: string`",
    request: { severity: BI, summary: "any value is accepted", action: "Implementations must handle values outside the old list." },
    response: { severity: "warning", summary: "any value may be answered", action: "Handle values outside the old list." }
  },
  "max-length-decreased": {
    example: "`maxLength: 255` \u2192 `maxLength: 100` (or set where there was none)",
    request: { severity: BC, summary: "shorter values only", action: "Send values no longer than the new maximum." },
    response: { severity: BI, summary: "shorter values only", action: "Implementations must answer values no longer than the new maximum." }
  },
  "max-length-increased": {
    example: "`maxLength: 100` \u2192 `maxLength: 255` (or removed)",
    request: { severity: BI, summary: "longer values accepted", action: "Implementations must accept and store the longer values." },
    response: { severity: BC, summary: "longer values may be answered", action: "Accept longer values where you read them." }
  },
  "min-length-increased": {
    example: "`minLength: 1` \u2192 `minLength: 2` (or set where there was none)",
    request: { severity: BC, summary: "longer values only", action: "Send values at least as long as the new minimum." },
    response: { severity: BI, summary: "longer values only", action: "Implementations must answer values at least as long as the new minimum." }
  },
  "min-length-decreased": {
    example: "`minLength: 2` \u2192 `minLength: 1` (or removed)",
    request: { severity: BI, summary: "shorter values accepted", action: "Implementations must accept the shorter values." },
    response: { severity: BC, summary: "shorter values may be answered", action: "Accept shorter (or empty) values where you read them." }
  },
  "max-decreased": {
    example: "`maximum: 1000` \u2192 `maximum: 100` (or `exclusiveMaximum`, or set where there was none)",
    request: { severity: BC, summary: "smaller numbers only", action: "Send numbers within the new maximum." },
    response: { severity: BI, summary: "smaller numbers only", action: "Implementations must answer numbers within the new maximum." }
  },
  "max-increased": {
    example: "`maximum: 100` \u2192 `maximum: 1000` (or removed)",
    request: { severity: BI, summary: "larger numbers accepted", action: "Implementations must accept the larger numbers." },
    response: { severity: BC, summary: "larger numbers may be answered", action: "Accept larger numbers where you read them." }
  },
  "min-increased": {
    example: "`minimum: 0` \u2192 `minimum: 1` (or set where there was none)",
    request: { severity: BC, summary: "larger numbers only", action: "Send numbers within the new minimum." },
    response: { severity: BI, summary: "larger numbers only", action: "Implementations must answer numbers within the new minimum." }
  },
  "min-decreased": {
    example: "`minimum: 1` \u2192 `minimum: 0` (or removed)",
    request: { severity: BI, summary: "smaller numbers accepted", action: "Implementations must accept the smaller numbers." },
    response: { severity: BC, summary: "smaller numbers may be answered", action: "Accept smaller numbers where you read them." }
  },
  "max-items-decreased": {
    example: "`maxItems: 100` \u2192 `maxItems: 10` (or set where there was none)",
    request: { severity: BC, summary: "fewer items only", action: "Send no more items than the new maximum." },
    response: { severity: BI, summary: "fewer items only", action: "Implementations must answer no more items than the new maximum." }
  },
  "max-items-increased": {
    example: "`maxItems: 10` \u2192 `maxItems: 100` (or removed)",
    request: { severity: BI, summary: "more items accepted", action: "Implementations must accept the larger arrays." },
    response: { severity: BC, summary: "more items may be answered", action: "Accept larger arrays where you read them." }
  },
  "min-items-increased": {
    example: "`minItems: 0` \u2192 `minItems: 1` (or set where there was none)",
    request: { severity: BC, summary: "more items required", action: "Send at least the new minimum of items." },
    response: { severity: BI, summary: "more items required", action: "Implementations must answer at least the new minimum of items." }
  },
  "min-items-decreased": {
    example: "`minItems: 1` \u2192 `minItems: 0` (or removed)",
    request: { severity: BI, summary: "fewer items accepted", action: "Implementations must accept the smaller (or empty) arrays." },
    response: { severity: BC, summary: "fewer items may be answered", action: "Accept smaller (or empty) arrays where you read them." }
  },
  "pattern-added": {
    example: "`pattern: ^[a-z]+$` set where there was none",
    request: { severity: BC, summary: "values must now match a pattern", action: "Send values that match the pattern." },
    response: { severity: BI, summary: "values must now match a pattern", action: "Implementations must answer values that match the pattern." }
  },
  "pattern-removed": {
    example: "`pattern: ^[a-z]+$` removed",
    request: { severity: BI, summary: "values of any shape are accepted", action: "Implementations must accept values that do not match the old pattern." },
    response: { severity: BC, summary: "values no longer follow a pattern", action: "Stop relying on the old pattern when reading." }
  },
  "pattern-changed": {
    example: "`pattern: ^[a-z]+$` \u2192 `pattern: ^[a-z0-9]+$`",
    request: { severity: BC, summary: "values must match another pattern", action: "Send values that match the new pattern." },
    response: { severity: BC, summary: "values follow another pattern", action: "Read values that match the new pattern." }
  },
  "constraint-changed": {
    example: "`multipleOf: 2` \u2192 `multipleOf: 3` (any other validation keyword: `uniqueItems`, `minProperties`, `not`, \u2026)",
    request: { severity: BC, summary: "another validation keyword changed", action: "Send values that satisfy the new constraint." },
    response: { severity: BC, summary: "another validation keyword changed", action: "Read values under the new constraint." }
  },
  "default-changed": {
    example: "`default: 50` \u2192 `default: 20` (or removed)",
    request: {
      severity: BC,
      summary: "leaving the value out now means something else",
      action: "Send the old default explicitly where you relied on it."
    }
  },
  "variant-added": {
    example: "`anyOf: [A, B]` \u2192 `anyOf: [A, B, C]` (or a plain schema \u2192 `anyOf`)",
    request: { severity: BI, summary: "a new alternative is accepted", action: "Implementations must accept and handle the new alternative." },
    response: { severity: BC, summary: "a new alternative may be answered", action: "Handle the new alternative where you read the value." }
  },
  "variant-removed": {
    example: "`anyOf: [A, B, C]` \u2192 `anyOf: [A, B]`",
    request: { severity: BC, summary: "an alternative is no longer accepted", action: "Stop sending the removed alternative." },
    response: { severity: BI, summary: "an alternative may no longer be answered", action: "Implementations must stop answering the removed alternative." }
  },
  "discriminator-changed": {
    example: "`discriminator.propertyName: kind` \u2192 `type`",
    request: { severity: BC, summary: "the alternatives are told apart by another property", action: "Send the new discriminating property." },
    response: { severity: BC, summary: "the alternatives are told apart by another property", action: "Tell the alternatives apart by the new property." }
  }
};
var OBJECT_KINDS = {
  removed: {
    example: "property `nickname` removed",
    request: { severity: BC, summary: "a field that was accepted is not any more", action: "Stop sending the field." },
    response: { severity: BC, summary: "a field is no longer answered", action: "Stop reading the field." }
  },
  added: {
    example: "optional property `nickname` added",
    request: {
      severity: BI,
      summary: "a new optional field is accepted",
      action: "Implementations must accept the field and act on it (or it is silently ignored)."
    },
    response: { severity: "non-breaking", summary: "a new optional field may be answered" }
  },
  "added-required": {
    example: "required property `nickname` added",
    request: { severity: BC, summary: "a new field must be sent", action: "Send the new field." },
    response: { severity: BI, summary: "a new field must always be answered", action: "Implementations must answer the new field." }
  },
  "became-required": {
    example: "`nickname` added to `required`",
    request: { severity: BC, summary: "an optional field must now be sent", action: "Always send the field." },
    response: { severity: BI, summary: "an optional field must now always be answered", action: "Implementations must always answer the field." }
  },
  "became-optional": {
    example: "`revision` removed from `required`",
    request: { severity: BI, summary: "a required field may now be left out", action: "Implementations must handle the field being absent." },
    response: { severity: BC, summary: "a field that was always answered may now be absent", action: "Check that the field is present before reading it." }
  },
  sealed: {
    example: "`unevaluatedProperties: {not: {}}` (or `false`) set, or a map\u2019s value schema restricted to none",
    request: { severity: BC, summary: "fields the object does not declare are refused", action: "Send only the declared fields." },
    response: { severity: BI, summary: "undeclared fields may no longer be answered", action: "Implementations must answer only the declared fields." }
  },
  unsealed: {
    example: "`unevaluatedProperties: {not: {}}` removed",
    request: { severity: BI, summary: "fields the object does not declare are accepted", action: "Implementations must accept (or ignore) undeclared fields." },
    response: { severity: "non-breaking", summary: "undeclared fields may be answered" }
  }
};
var OPERATION_RULES = {
  "operation-added": {
    severity: "non-breaking",
    summary: "a new operation",
    example: "`GET /v1/spaces/{spaceId}/summary` added"
  },
  "operation-removed": {
    severity: BC,
    summary: "an operation (its path and method) is gone",
    action: "Stop calling the operation; use its replacement named in the notes.",
    example: "`DELETE /v1/spaces/{spaceId}` removed"
  },
  "operation-id-changed": {
    severity: BC,
    summary: "the operation id changed (generated clients name their methods and types after it)",
    action: "Use the new operation id where your code names the operation (`operations[\u2026]`, generated method names).",
    example: "`getSpace` \u2192 `readSpace`"
  },
  "operation-path-changed": {
    severity: BC,
    summary: "the operation moved to another path or method",
    action: "Call the operation at its new path and method.",
    example: "`POST /v1/spaces/{spaceId}/copy` \u2192 `POST /v1/spaces/{spaceId}/duplicate`"
  },
  "operation-deprecated": {
    severity: "non-breaking",
    summary: "the operation is now deprecated",
    example: "`deprecated: true` set"
  },
  "operation-security-changed": {
    severity: BC,
    summary: "a way of authenticating the operation accepted before is refused",
    action: "Authenticate the way the operation now requires.",
    example: "`security: [{BearerAuth: []}]` \u2192 `security: [{ApiKey: []}]`"
  },
  "operation-security-alternative-added": {
    severity: BI,
    summary: "a new way of authenticating (or none) is accepted",
    action: "Implementations must accept the new way of authenticating.",
    example: "`security: [{BearerAuth: []}]` \u2192 `security: [{BearerAuth: []}, {}]`"
  },
  "security-scheme-changed": {
    severity: BC,
    summary: "a security scheme the operations use is defined differently",
    action: "Send credentials the way the scheme now defines.",
    example: "`BearerAuth` `scheme: Bearer` \u2192 `type: apiKey`"
  },
  "schema-removed": {
    severity: BC,
    summary: 'a named schema is gone, and with it its type in `generated/schema.d.ts` (`components["schemas"][\u2026]`)',
    action: "Use the type that replaces it where your code names it.",
    example: "`components.schemas.SpaceLink` removed"
  },
  "request-parameter-added": {
    severity: BI,
    summary: "a new optional parameter is accepted",
    action: "Implementations must accept the parameter and act on it.",
    example: "optional query parameter `search` added"
  },
  "request-parameter-added-required": {
    severity: BC,
    summary: "a new parameter must be sent",
    action: "Send the new parameter.",
    example: "required query parameter `scope` added"
  },
  "request-parameter-removed": {
    severity: BC,
    summary: "a parameter that was accepted is not any more",
    action: "Stop sending the parameter.",
    example: "query parameter `search` removed"
  },
  "request-parameter-became-required": {
    severity: BC,
    summary: "an optional parameter must now be sent",
    action: "Always send the parameter.",
    example: "query parameter `limit`: `required: false` \u2192 `true`"
  },
  "request-parameter-became-optional": {
    severity: BI,
    summary: "a required parameter may now be left out",
    action: "Implementations must handle the parameter being absent.",
    example: "query parameter `scope`: `required: true` \u2192 `false`"
  },
  "request-parameter-location-changed": {
    severity: BC,
    summary: "a parameter moved (`in` changed)",
    action: "Send the parameter in its new place.",
    example: "`shareKey`: `in: query` \u2192 `in: header`"
  },
  "request-parameter-style-changed": {
    severity: BC,
    summary: "a parameter is serialised with another `style`",
    action: "Serialise the parameter with the new style.",
    example: "`style: form` \u2192 `style: pipeDelimited`"
  },
  "request-parameter-explode-changed": {
    severity: BC,
    summary: "an array or object parameter is serialised with another `explode`",
    action: "Serialise the parameter the new way (`a=1&a=2` for exploded, `a=1,2` otherwise).",
    example: "`explode: true` \u2192 `explode: false`"
  },
  "request-parameter-renamed": {
    severity: BC,
    summary: "a path parameter has another name (same URL, but typed clients name it)",
    action: "Use the new name in `params.path`.",
    example: "`/v1/spaces/{spaceId}` \u2192 `/v1/spaces/{id}`"
  },
  "request-body-added": {
    severity: BI,
    summary: "the operation now accepts an optional body",
    action: "Implementations must accept the body and act on it.",
    example: "optional `requestBody` added"
  },
  "request-body-added-required": {
    severity: BC,
    summary: "the operation now requires a body",
    action: "Send the body.",
    example: "`requestBody` with `required: true` added"
  },
  "request-body-removed": {
    severity: BC,
    summary: "the operation no longer takes a body",
    action: "Stop sending a body.",
    example: "`requestBody` removed"
  },
  "request-body-became-required": {
    severity: BC,
    summary: "the body must now be sent",
    action: "Always send the body.",
    example: "`requestBody.required: false` \u2192 `true`"
  },
  "request-body-became-optional": {
    severity: BI,
    summary: "the body may now be left out",
    action: "Implementations must handle a request without a body.",
    example: "`requestBody.required: true` \u2192 `false`"
  },
  "request-media-type-added": {
    severity: BI,
    summary: "the body is accepted in a new content type",
    action: "Implementations must accept bodies of the new content type.",
    example: "`multipart/form-data` added beside `application/json`"
  },
  "request-media-type-removed": {
    severity: BC,
    summary: "a content type of the body is no longer accepted",
    action: "Send the body in one of the remaining content types.",
    example: "`application/x-www-form-urlencoded` removed"
  },
  "response-success-status-changed": {
    severity: BC,
    summary: "the operation answers success with another status",
    action: "Expect the new success status.",
    example: "`200` \u2192 `201`"
  },
  "response-status-removed": {
    severity: BI,
    summary: "a declared status is no longer declared",
    action: "Implementations must stop answering the status.",
    example: "the `409` answer removed"
  },
  "response-status-added": {
    severity: "warning",
    summary: "a new error status is declared",
    action: "Handle the new status where you switch over the statuses.",
    example: "a `409` answer added"
  },
  "response-media-type-added": {
    severity: "non-breaking",
    summary: "the answer is also available in a new content type",
    example: "`text/markdown` added beside `application/json`"
  },
  "response-media-type-removed": {
    severity: BC,
    summary: "the answer is no longer given in a content type",
    action: "Ask for and read one of the remaining content types.",
    example: "`application/json` \u2192 `application/vnd.api+json`"
  },
  "response-header-added": {
    severity: "non-breaking",
    summary: "a new optional response header",
    example: "optional `etag` header added"
  },
  "response-header-added-required": {
    severity: BI,
    summary: "a new response header must always be sent",
    action: "Implementations must send the header.",
    example: "required `location` header added"
  },
  "response-header-removed": {
    severity: BC,
    summary: "a response header is no longer sent",
    action: "Stop reading the header.",
    example: "`location` header removed"
  },
  "response-header-became-optional": {
    severity: BC,
    summary: "a response header that was always sent may now be absent",
    action: "Check that the header is present before reading it.",
    example: "`location`: `required: true` \u2192 `false`"
  },
  "response-header-became-required": {
    severity: BI,
    summary: "a response header must now always be sent",
    action: "Implementations must always send the header.",
    example: "`etag`: `required: false` \u2192 `true`"
  }
};
function buildRules() {
  const rules = /* @__PURE__ */ new Map();
  for (const [id, rule] of Object.entries(OPERATION_RULES)) {
    rules.set(id, { id, ...rule });
  }
  for (const context of SCHEMA_CONTEXTS) {
    const direction = directionOf(context);
    for (const [kind, entry] of Object.entries(SCALAR_KINDS)) {
      const side = entry[direction];
      if (!side) continue;
      const id = `${context}-${kind}`;
      rules.set(id, { id, ...side, example: entry.example, kind, context });
    }
  }
  for (const direction of ["request", "response"]) {
    for (const [kind, entry] of Object.entries(OBJECT_KINDS)) {
      const side = entry[direction];
      const id = `${direction}-property-${kind}`;
      rules.set(id, { id, ...side, example: entry.example, kind, context: `${direction}-property` });
    }
  }
  return rules;
}
var RULES = buildRules();
function isObjectKind(kind) {
  return Object.hasOwn(OBJECT_KINDS, kind);
}
function schemaRule(context, kind) {
  const id = isObjectKind(kind) ? `${directionOf(context)}-property-${kind}` : `${context}-${kind}`;
  return RULES.has(id) ? id : void 0;
}

// breaking/schema.ts
var UPPER_BOUNDS = ["maxLength", "maxItems", "maximum", "exclusiveMaximum"];
var LOWER_BOUNDS = ["minLength", "minItems", "minimum", "exclusiveMinimum"];
var OTHER_CONSTRAINTS = [
  "multipleOf",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "patternProperties",
  "dependentRequired",
  "dependentSchemas",
  "contains",
  "minContains",
  "maxContains",
  "prefixItems",
  "not",
  "if",
  "then",
  "else",
  "contentEncoding",
  "contentMediaType",
  "contentSchema"
];
var SCALAR_KEYWORDS = ["format", "pattern", "default", ...UPPER_BOUNDS, ...LOWER_BOUNDS, ...OTHER_CONSTRAINTS];
function empty(path3, origin = path3) {
  return {
    path: path3,
    origin,
    typesPath: path3,
    nullable: false,
    nullablePath: path3,
    keywords: /* @__PURE__ */ new Map(),
    readOnly: false,
    writeOnly: false,
    deprecated: false,
    properties: /* @__PURE__ */ new Map(),
    required: /* @__PURE__ */ new Set()
  };
}
var SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;
function refName(ref) {
  const match = SCHEMA_REF.exec(ref);
  return match ? decodeURIComponent(match[1]).replace(/~1/g, "/").replace(/~0/g, "~") : void 0;
}
function isNullSchema(document, node) {
  const target = follow(document, { node, path: "" }).node;
  if (!isObject(target)) return false;
  if (target.type === "null") return true;
  if (Array.isArray(target.type) && target.type.length === 1 && target.type[0] === "null") return true;
  if (Object.hasOwn(target, "const") && target.const === null) return true;
  return Array.isArray(target.enum) && target.enum.length === 1 && target.enum[0] === null;
}
function follow(document, at, seen = /* @__PURE__ */ new Set()) {
  let { node, path: path3 } = at;
  let name;
  while (isObject(node) && typeof node.$ref === "string" && Object.keys(node).length === 1) {
    const ref = node.$ref;
    if (seen.has(ref)) break;
    seen.add(ref);
    name ??= refName(ref);
    node = resolvePointer(document, ref);
    path3 = ref;
  }
  return { node, path: path3, name };
}
function typesOf(value) {
  if (value === void 0) return { nullable: false };
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  return { types: new Set(list.filter((type) => type !== "null")), nullable: list.includes("null") };
}
function jsonType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
function normalize(document, at, seen = /* @__PURE__ */ new Set()) {
  const followed = follow(document, at);
  const { node, path: path3 } = followed;
  if (seen.has(path3)) return empty(path3, at.path);
  const inside = new Set(seen).add(path3);
  const result = empty(path3, at.path);
  result.refName = followed.name;
  if (node === false) {
    result.types = /* @__PURE__ */ new Set();
    return result;
  }
  if (!isObject(node)) return result;
  const own = { ...node };
  const members = [];
  if (typeof own.$ref === "string") {
    members.push({ node: { $ref: own.$ref }, path: path3 });
    delete own.$ref;
  }
  if (Array.isArray(own.allOf)) {
    own.allOf.forEach((member, index) => members.push({ node: member, path: child(path3, "allOf", index) }));
  }
  applyOwn(result, own, path3);
  for (const keyword of ["anyOf", "oneOf"]) {
    const list = own[keyword];
    if (!Array.isArray(list)) continue;
    const nonNull = [];
    list.forEach((member, index) => {
      if (isNullSchema(document, member)) {
        result.nullable = true;
        result.nullablePath = path3;
      } else nonNull.push({ node: member, path: child(path3, keyword, index) });
    });
    if (nonNull.length === 1) members.push(nonNull[0]);
    else if (nonNull.length > 1 && !result.variants) {
      result.variants = { keyword, members: nonNull, path: child(path3, keyword) };
    }
  }
  for (const member of members) mergeMember(result, normalize(document, member, inside));
  if (!result.types) {
    if (result.properties.size > 0 || result.additional || result.required.size > 0) result.types = /* @__PURE__ */ new Set(["object"]);
    else if (result.items) result.types = /* @__PURE__ */ new Set(["array"]);
    else if (result.enumValues && result.enumValues.value.length > 0) {
      result.types = new Set(result.enumValues.value.map(jsonType));
    }
  }
  return result;
}
function applyOwn(result, own, path3) {
  const { types, nullable } = typesOf(own.type);
  if (types) {
    result.types = types;
    result.typesPath = path3;
  }
  if (nullable) {
    result.nullable = true;
    result.nullablePath = path3;
  }
  const values2 = Object.hasOwn(own, "const") ? [own.const] : Array.isArray(own.enum) ? own.enum : void 0;
  if (values2) {
    if (values2.includes(null)) {
      result.nullable = true;
      result.nullablePath = path3;
    }
    result.enumValues = { value: values2.filter((value) => value !== null), path: path3 };
  }
  for (const keyword of SCALAR_KEYWORDS) {
    if (own[keyword] !== void 0) result.keywords.set(keyword, { value: own[keyword], path: path3 });
  }
  for (const [flag, bound] of [
    ["exclusiveMaximum", "maximum"],
    ["exclusiveMinimum", "minimum"]
  ]) {
    if (typeof own[flag] === "boolean") {
      result.keywords.delete(flag);
      const value = own[bound];
      if (own[flag] === true && typeof value === "number") {
        result.keywords.delete(bound);
        result.keywords.set(flag, { value, path: path3 });
      }
    }
  }
  if (own.readOnly === true) result.readOnly = true;
  if (own.writeOnly === true) result.writeOnly = true;
  if (own.deprecated === true) result.deprecated = true;
  if (own.discriminator !== void 0) result.discriminator = { value: own.discriminator, path: path3 };
  if (isObject(own.properties)) {
    for (const [name, schema] of Object.entries(own.properties)) {
      result.properties.set(name, { node: schema, path: child(path3, "properties", name) });
    }
  }
  if (Array.isArray(own.required)) for (const name of own.required) result.required.add(String(name));
  for (const keyword of ["additionalProperties", "unevaluatedProperties"]) {
    if (result.additional || own[keyword] === void 0) continue;
    const value = own[keyword];
    const sealed = value === false || isObject(value) && Object.keys(value).length === 1 && isObject(value.not) && Object.keys(value.not).length === 0;
    const at = child(path3, keyword);
    result.additional = sealed ? { sealed: true, path: path3 } : { sealed: false, schema: { node: value === true ? {} : value, path: at }, path: path3 };
  }
  if (own.items !== void 0) result.items = { node: own.items, path: child(path3, "items") };
}
function tighter(keyword, a, b) {
  if (typeof a !== "number" || typeof b !== "number") return false;
  return UPPER_BOUNDS.includes(keyword) ? a < b : a > b;
}
function mergeMember(parent, member) {
  parent.refName ??= member.refName;
  if (!parent.types) {
    parent.types = member.types;
    parent.typesPath = member.typesPath;
  } else if (member.types) {
    const both = new Set([...parent.types].filter((type) => member.types.has(type)));
    if (parent.types.has("number") && member.types.has("integer")) both.add("integer");
    if (parent.types.has("integer") && member.types.has("number")) both.add("integer");
    parent.types = both;
  }
  if (member.nullable && !parent.nullable) {
    parent.nullable = true;
    parent.nullablePath = member.nullablePath;
  }
  parent.enumValues ??= member.enumValues;
  for (const [keyword, entry] of member.keywords) {
    const current = parent.keywords.get(keyword);
    if (!current || tighter(keyword, entry.value, current.value)) parent.keywords.set(keyword, entry);
  }
  parent.readOnly ||= member.readOnly;
  parent.writeOnly ||= member.writeOnly;
  parent.deprecated ||= member.deprecated;
  for (const [name, location] of member.properties) if (!parent.properties.has(name)) parent.properties.set(name, location);
  for (const name of member.required) parent.required.add(name);
  parent.additional ??= member.additional;
  parent.items ??= member.items;
  parent.variants ??= member.variants;
  parent.discriminator ??= member.discriminator;
}
function typesCover(outer, inner) {
  if (!outer) return true;
  if (!inner) return false;
  return [...inner].every((type) => outer.has(type) || type === "integer" && outer.has("number"));
}
function typesOverlap(a, b) {
  if (!a || !b) return true;
  return [...a].some((type) => b.has(type) || type === "integer" && b.has("number") || type === "number" && b.has("integer"));
}
function showTypes(types) {
  if (!types) return "any";
  if (types.size === 0) return "nothing";
  return [...types].sort().join(" | ");
}

// breaking/compare.ts
var METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
function compareDocuments(base2, revision2, options = {}) {
  if (!isObject(base2) || !isObject(revision2)) throw new TypeError("compareDocuments: both documents must be objects");
  const context = { base: base2, revision: revision2, drafts: /* @__PURE__ */ new Map() };
  const baseOperations = operationsOf(base2);
  const revisionOperations = operationsOf(revision2);
  const revisionByKey = new Map(revisionOperations.map((operation) => [operation.key, operation]));
  const revisionById = new Map(
    revisionOperations.filter((operation) => operation.hasId).map((operation) => [operation.ref.operationId, operation])
  );
  const used = /* @__PURE__ */ new Set();
  const pairs = [];
  const unmatched = [];
  for (const operation of baseOperations) {
    const match = revisionByKey.get(operation.key);
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else unmatched.push(operation);
  }
  for (const operation of unmatched) {
    const match = operation.hasId ? revisionById.get(operation.ref.operationId) : void 0;
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else {
      emit(context, {
        rule: "operation-removed",
        path: operation.pointer,
        document: "base",
        operation: operation.ref,
        detail: `${operation.ref.method} ${operation.ref.path} removed`
      });
    }
  }
  for (const operation of revisionOperations) {
    if (used.has(operation)) continue;
    emit(context, {
      rule: "operation-added",
      path: operation.pointer,
      document: "revision",
      operation: operation.ref,
      detail: `new operation ${operation.ref.method} ${operation.ref.path}`
    });
  }
  for (const [before, after] of pairs) compareOperation(context, before, after);
  const baseSchemas = isObject(base2.components) && isObject(base2.components.schemas) ? base2.components.schemas : {};
  const revisionSchemas = isObject(revision2.components) && isObject(revision2.components.schemas) ? revision2.components.schemas : {};
  for (const name of Object.keys(baseSchemas)) {
    if (Object.hasOwn(revisionSchemas, name)) continue;
    emit(context, { rule: "schema-removed", path: child("#/components/schemas", name), document: "base", detail: `schema \`${name}\` removed` });
  }
  const ignored = new Set(options.ignoreRules ?? []);
  return [...context.drafts.values()].filter((draft) => !ignored.has(draft.rule)).map(finish).sort(byPlace);
}
function emit(context, finding) {
  const key = `${finding.rule}\0${finding.document}\0${finding.path}\0${finding.detail}`;
  let draft = context.drafts.get(key);
  if (!draft) {
    draft = { ...finding, operations: /* @__PURE__ */ new Map(), fields: /* @__PURE__ */ new Set() };
    context.drafts.set(key, draft);
  }
  if (finding.operation) draft.operations.set(`${finding.operation.method} ${finding.operation.path}`, finding.operation);
  if (finding.field) draft.fields.add(finding.field);
}
function finish(draft) {
  const rule = RULES.get(draft.rule);
  const operations = [...draft.operations.values()].sort((a, b) => a.operationId.localeCompare(b.operationId));
  const schema = componentOf(draft.path);
  const fields = [...draft.fields].sort();
  const named = fields.map((field) => `\`${field}\``).join(", ");
  return {
    rule: draft.rule,
    severity: rule.severity,
    path: draft.path,
    document: draft.document,
    ...schema === void 0 ? { operation: operations[0] } : { schema },
    operations,
    fields,
    detail: draft.detail,
    message: named ? `${named}: ${draft.detail}` : draft.detail,
    ...rule.action ? { action: rule.action } : {}
  };
}
var SEVERITY_ORDER = {
  "breaking-client": 0,
  "breaking-implementation": 1,
  warning: 2,
  "non-breaking": 3
};
function byPlace(a, b) {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.path.localeCompare(b.path) || a.rule.localeCompare(b.rule) || a.detail.localeCompare(b.detail);
}
function operationsOf(document) {
  const operations = [];
  if (!isObject(document.paths)) return operations;
  for (const [path3, raw] of Object.entries(document.paths)) {
    const pathPointer = child("#/paths", path3);
    const pathItem = deref(document, raw).node;
    if (!isObject(pathItem)) continue;
    const pathParameters = [...path3.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const template = path3.replace(/\{[^}]+\}/g, "{}");
    for (const method of METHODS) {
      const node = pathItem[method];
      if (!isObject(node)) continue;
      const upper = method.toUpperCase();
      const hasId = typeof node.operationId === "string";
      operations.push({
        ref: { operationId: hasId ? node.operationId : `${upper} ${path3}`, method: upper, path: path3 },
        key: `${upper} ${template}`,
        node,
        pointer: child(pathPointer, method),
        pathItem,
        pathPointer,
        pathParameters,
        hasId
      });
    }
  }
  return operations;
}
function deref(document, node, path3 = "") {
  const seen = /* @__PURE__ */ new Set();
  while (isObject(node) && typeof node.$ref === "string" && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    path3 = node.$ref;
    node = resolvePointer(document, node.$ref);
  }
  return { node, path: path3 };
}
function compareOperation(context, before, after) {
  const operation = after.ref;
  const moved = before.key !== after.key;
  if (moved) {
    emit(context, {
      rule: "operation-path-changed",
      path: after.pointer,
      document: "revision",
      operation,
      detail: `${before.ref.method} ${before.ref.path} \u2192 ${after.ref.method} ${after.ref.path}`
    });
  } else if (before.hasId && after.hasId && before.ref.operationId !== after.ref.operationId) {
    emit(context, {
      rule: "operation-id-changed",
      path: child(after.pointer, "operationId"),
      document: "revision",
      operation,
      detail: `operation id \`${before.ref.operationId}\` \u2192 \`${after.ref.operationId}\``
    });
  }
  if (after.node.deprecated === true && before.node.deprecated !== true) {
    emit(context, { rule: "operation-deprecated", path: child(after.pointer, "deprecated"), document: "revision", operation, detail: "deprecated" });
  }
  compareSecurity(context, before, after);
  compareParameters(context, before, after, moved);
  compareRequestBody(context, before, after);
  compareResponses(context, before, after);
}
function walk(context, schemaContext, operation, visited) {
  return { context, schemaContext, direction: directionOf(schemaContext), operation, visited };
}
function securityOf(document, operation) {
  const own = Array.isArray(operation.node.security);
  const list = own ? operation.node.security : document.security;
  const requirements = Array.isArray(list) && list.length > 0 ? list : [{}];
  const alternatives = /* @__PURE__ */ new Map();
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const sorted = {};
    for (const name of Object.keys(requirement).sort()) {
      const scopes = requirement[name];
      sorted[name] = Array.isArray(scopes) ? [...scopes].map(String).sort() : [];
    }
    alternatives.set(canonical(sorted), sorted);
  }
  return { alternatives, pointer: own ? child(operation.pointer, "security") : "#/security" };
}
function showRequirement(requirement) {
  const names = Object.entries(requirement).map(
    ([name, scopes]) => Array.isArray(scopes) && scopes.length > 0 ? `${name} (${scopes.join(", ")})` : name
  );
  return names.length > 0 ? names.join(" + ") : "no authentication";
}
function compareSecurity(context, before, after) {
  const operation = after.ref;
  const base2 = securityOf(context.base, before);
  const revision2 = securityOf(context.revision, after);
  const anonymous = canonical({});
  for (const [key, requirement] of base2.alternatives) {
    if (revision2.alternatives.has(key) || revision2.alternatives.has(anonymous)) continue;
    emit(context, {
      rule: "operation-security-changed",
      path: revision2.pointer,
      document: "revision",
      operation,
      detail: `${showRequirement(requirement)} no longer accepted; now ${[...revision2.alternatives.values()].map(showRequirement).join(" or ")}`
    });
  }
  for (const [key, requirement] of revision2.alternatives) {
    if (base2.alternatives.has(key)) continue;
    emit(context, {
      rule: "operation-security-alternative-added",
      path: revision2.pointer,
      document: "revision",
      operation,
      detail: `${showRequirement(requirement)} now accepted`
    });
  }
  const baseSchemes = schemesOf(context.base);
  const revisionSchemes = schemesOf(context.revision);
  for (const requirement of revision2.alternatives.values()) {
    for (const name of Object.keys(requirement)) {
      const was = baseSchemes[name];
      const now = revisionSchemes[name];
      if (!isObject(was) || !isObject(now)) continue;
      const { description: _a, ...wasShape } = was;
      const { description: _b, ...nowShape } = now;
      if (canonical(wasShape) === canonical(nowShape)) continue;
      emit(context, {
        rule: "security-scheme-changed",
        path: child("#/components/securitySchemes", name),
        document: "revision",
        operation,
        detail: `security scheme \`${name}\`: ${canonical(wasShape)} \u2192 ${canonical(nowShape)}`
      });
    }
  }
}
function schemesOf(document) {
  return isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
}
function parametersOf(document, operation) {
  const result = /* @__PURE__ */ new Map();
  const lists = [
    [operation.pathItem.parameters, child(operation.pathPointer, "parameters")],
    [operation.node.parameters, child(operation.pointer, "parameters")]
  ];
  for (const [list, listPointer] of lists) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw, index) => {
      const listed = child(listPointer, index);
      const { node, path: path3 } = deref(document, raw, listed);
      if (!isObject(node) || typeof node.name !== "string" || typeof node.in !== "string") return;
      result.set(parameterKey(node.in, node.name), { name: node.name, in: node.in, node, path: path3, listed });
    });
  }
  return result;
}
function parameterKey(location, name) {
  return `${location}:${location === "header" ? name.toLowerCase() : name}`;
}
function parameterSchema(parameter) {
  if (parameter.node.schema !== void 0) return { node: parameter.node.schema, path: child(parameter.path, "schema") };
  if (isObject(parameter.node.content)) {
    const [mediaType, entry] = Object.entries(parameter.node.content)[0] ?? [];
    if (mediaType && isObject(entry)) return { node: entry.schema ?? {}, path: child(parameter.path, "content", mediaType, "schema") };
  }
  return void 0;
}
function isRequired(parameter) {
  return parameter.in === "path" || parameter.node.required === true;
}
function serialisation(parameter) {
  const fallback = parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple";
  const style = typeof parameter.node.style === "string" ? parameter.node.style : fallback;
  const explode = typeof parameter.node.explode === "boolean" ? parameter.node.explode : style === "form";
  return { style, explode };
}
function compareParameters(context, before, after, moved) {
  const operation = after.ref;
  const base2 = parametersOf(context.base, before);
  const revision2 = parametersOf(context.revision, after);
  const visited = /* @__PURE__ */ new Set();
  const renamed = /* @__PURE__ */ new Map();
  if (!moved) {
    before.pathParameters.forEach((name, index) => {
      const now = after.pathParameters[index];
      if (now === void 0 || now === name) return;
      renamed.set(parameterKey("path", name), parameterKey("path", now));
      const parameter = revision2.get(parameterKey("path", now));
      emit(context, {
        rule: "request-parameter-renamed",
        path: parameter?.path ?? after.pointer,
        document: "revision",
        operation,
        field: now,
        detail: `path parameter \`${name}\` \u2192 \`${now}\``
      });
    });
  }
  const matched = /* @__PURE__ */ new Set();
  for (const [key, was] of base2) {
    if (moved && was.in === "path") continue;
    const revisionKey = renamed.get(key) ?? key;
    const now = revision2.get(revisionKey);
    if (now) {
      matched.add(revisionKey);
      compareParameter(walk(context, "request-parameter", operation, visited), was, now);
      continue;
    }
    const relocated = [...revision2.values()].find(
      (candidate) => candidate.name === was.name && !base2.has(parameterKey(candidate.in, candidate.name))
    );
    if (relocated) {
      matched.add(parameterKey(relocated.in, relocated.name));
      emit(context, {
        rule: "request-parameter-location-changed",
        path: relocated.path,
        document: "revision",
        operation,
        field: was.name,
        detail: `\`in: ${was.in}\` \u2192 \`in: ${relocated.in}\``
      });
      continue;
    }
    emit(context, {
      rule: "request-parameter-removed",
      path: was.listed,
      document: "base",
      operation,
      field: was.name,
      detail: `${was.in} parameter removed`
    });
  }
  for (const [key, now] of revision2) {
    if (matched.has(key) || moved && now.in === "path") continue;
    emit(context, {
      rule: isRequired(now) ? "request-parameter-added-required" : "request-parameter-added",
      path: now.listed,
      document: "revision",
      operation,
      field: now.name,
      detail: `new ${isRequired(now) ? "required" : "optional"} ${now.in} parameter`
    });
  }
}
function compareParameter(w, was, now) {
  const { context } = w;
  const field = now.name;
  if (isRequired(was) !== isRequired(now)) {
    emit(context, {
      rule: isRequired(now) ? "request-parameter-became-required" : "request-parameter-became-optional",
      path: now.path,
      document: "revision",
      operation: w.operation,
      field,
      detail: isRequired(now) ? "now required" : "now optional"
    });
  }
  const wasSchema = parameterSchema(was);
  const nowSchema = parameterSchema(now);
  const structured = [wasSchema && normalize(context.base, wasSchema), nowSchema && normalize(context.revision, nowSchema)].some(
    (schema) => !schema || !schema.types || schema.types.has("array") || schema.types.has("object")
  );
  if (structured) {
    const a = serialisation(was);
    const b = serialisation(now);
    if (a.style !== b.style) {
      emit(context, { rule: "request-parameter-style-changed", path: now.path, document: "revision", operation: w.operation, field, detail: `style ${a.style} \u2192 ${b.style}` });
    }
    if (a.explode !== b.explode) {
      emit(context, { rule: "request-parameter-explode-changed", path: now.path, document: "revision", operation: w.operation, field, detail: `explode ${a.explode} \u2192 ${b.explode}` });
    }
  }
  if (wasSchema && nowSchema) compareSchema(w, wasSchema, nowSchema, field);
}
function requestBodyOf(document, operation) {
  if (operation.node.requestBody === void 0) return void 0;
  const { node, path: path3 } = deref(document, operation.node.requestBody, child(operation.pointer, "requestBody"));
  return isObject(node) ? { node, path: path3 } : void 0;
}
function contentOf(node) {
  return isObject(node.content) ? node.content : {};
}
function compareRequestBody(context, before, after) {
  const operation = after.ref;
  const was = requestBodyOf(context.base, before);
  const now = requestBodyOf(context.revision, after);
  if (!was && !now) return;
  if (!was) {
    const required = now.node.required === true;
    emit(context, {
      rule: required ? "request-body-added-required" : "request-body-added",
      path: now.path,
      document: "revision",
      operation,
      detail: required ? "a body is now required" : "an optional body is now accepted"
    });
    return;
  }
  if (!now) {
    emit(context, { rule: "request-body-removed", path: was.path, document: "base", operation, detail: "the body is no longer accepted" });
    return;
  }
  const wasRequired = was.node.required === true;
  const nowRequired = now.node.required === true;
  if (wasRequired !== nowRequired) {
    emit(context, {
      rule: nowRequired ? "request-body-became-required" : "request-body-became-optional",
      path: now.path,
      document: "revision",
      operation,
      detail: nowRequired ? "the body is now required" : "the body is now optional"
    });
  }
  const visited = /* @__PURE__ */ new Set();
  const wasContent = contentOf(was.node);
  const nowContent = contentOf(now.node);
  for (const [mediaType, entry] of Object.entries(wasContent)) {
    const match = nowContent[mediaType];
    if (!isObject(match)) {
      emit(context, { rule: "request-media-type-removed", path: child(was.path, "content", mediaType), document: "base", operation, detail: `\`${mediaType}\` no longer accepted` });
      continue;
    }
    if (!isObject(entry)) continue;
    compareSchema(
      walk(context, "request-property", operation, visited),
      { node: entry.schema ?? {}, path: child(was.path, "content", mediaType, "schema") },
      { node: match.schema ?? {}, path: child(now.path, "content", mediaType, "schema") },
      ""
    );
  }
  for (const mediaType of Object.keys(nowContent)) {
    if (Object.hasOwn(wasContent, mediaType)) continue;
    emit(context, { rule: "request-media-type-added", path: child(now.path, "content", mediaType), document: "revision", operation, detail: `\`${mediaType}\` now accepted` });
  }
}
function responsesOf(document, operation) {
  const result = /* @__PURE__ */ new Map();
  if (!isObject(operation.node.responses)) return result;
  for (const [status, raw] of Object.entries(operation.node.responses)) {
    const listed = child(operation.pointer, "responses", status);
    const { node, path: path3 } = deref(document, raw, listed);
    if (isObject(node)) result.set(status.toUpperCase(), { node, path: path3, listed });
  }
  return result;
}
var isSuccess = (status) => status.startsWith("2");
function compareResponses(context, before, after) {
  const operation = after.ref;
  const was = responsesOf(context.base, before);
  const now = responsesOf(context.revision, after);
  const pairs = [...was.keys()].filter((status) => now.has(status)).map((status) => [status, status]);
  const wasSuccess = [...was.keys()].filter(isSuccess);
  const nowSuccess = [...now.keys()].filter(isSuccess);
  const newSuccess = nowSuccess.filter((status) => !was.has(status));
  const goneSuccess = wasSuccess.filter((status) => !now.has(status));
  const replaced = /* @__PURE__ */ new Set();
  if (newSuccess.length > 0 && wasSuccess.length > 0) {
    emit(context, {
      rule: "response-success-status-changed",
      path: now.get(newSuccess[0]).listed,
      document: "revision",
      operation,
      detail: `success ${wasSuccess.join(", ")} \u2192 ${nowSuccess.join(", ")}`
    });
    if (goneSuccess.length === 1 && newSuccess.length === 1) {
      pairs.push([goneSuccess[0], newSuccess[0]]);
      replaced.add(goneSuccess[0]);
    }
  }
  for (const [status, entry] of was) {
    if (now.has(status) || replaced.has(status)) continue;
    emit(context, { rule: "response-status-removed", path: entry.listed, document: "base", operation, detail: `status ${status} no longer declared` });
  }
  for (const [status, entry] of now) {
    if (was.has(status) || isSuccess(status)) continue;
    emit(context, { rule: "response-status-added", path: entry.listed, document: "revision", operation, detail: `status ${status} now declared` });
  }
  const visited = /* @__PURE__ */ new Set();
  for (const [wasStatus, nowStatus] of pairs) {
    compareResponse(walk(context, "response-property", operation, visited), was.get(wasStatus), now.get(nowStatus), nowStatus);
  }
}
function headersOf(document, response) {
  const result = /* @__PURE__ */ new Map();
  if (!isObject(response.node.headers)) return result;
  for (const [name, raw] of Object.entries(response.node.headers)) {
    const { node, path: path3 } = deref(document, raw, child(response.path, "headers", name));
    if (isObject(node)) result.set(name.toLowerCase(), { name, node, path: path3 });
  }
  return result;
}
function compareResponse(w, was, now, status) {
  const { context } = w;
  const operation = w.operation;
  const wasHeaders = headersOf(context.base, was);
  const nowHeaders = headersOf(context.revision, now);
  for (const [key, header] of wasHeaders) {
    const match = nowHeaders.get(key);
    if (!match) {
      emit(context, { rule: "response-header-removed", path: header.path, document: "base", operation, field: header.name, detail: `header no longer sent with ${status}` });
      continue;
    }
    const wasRequired = header.node.required === true;
    const nowRequired = match.node.required === true;
    if (wasRequired !== nowRequired) {
      emit(context, {
        rule: nowRequired ? "response-header-became-required" : "response-header-became-optional",
        path: match.path,
        document: "revision",
        operation,
        field: match.name,
        detail: nowRequired ? `header now always sent with ${status}` : `header no longer always sent with ${status}`
      });
    }
    compareSchema(
      { ...w, schemaContext: "response-header" },
      { node: header.node.schema ?? {}, path: child(header.path, "schema") },
      { node: match.node.schema ?? {}, path: child(match.path, "schema") },
      match.name
    );
  }
  for (const [key, header] of nowHeaders) {
    if (wasHeaders.has(key)) continue;
    const required = header.node.required === true;
    emit(context, {
      rule: required ? "response-header-added-required" : "response-header-added",
      path: header.path,
      document: "revision",
      operation,
      field: header.name,
      detail: `new ${required ? "required" : "optional"} header with ${status}`
    });
  }
  const wasContent = contentOf(was.node);
  const nowContent = contentOf(now.node);
  for (const [mediaType, entry] of Object.entries(wasContent)) {
    const match = nowContent[mediaType];
    if (!isObject(match)) {
      emit(context, { rule: "response-media-type-removed", path: child(was.path, "content", mediaType), document: "base", operation, detail: `${status} no longer answered as \`${mediaType}\`` });
      continue;
    }
    if (!isObject(entry)) continue;
    compareSchema(
      w,
      { node: entry.schema ?? {}, path: child(was.path, "content", mediaType, "schema") },
      { node: match.schema ?? {}, path: child(now.path, "content", mediaType, "schema") },
      ""
    );
  }
  for (const mediaType of Object.keys(nowContent)) {
    if (Object.hasOwn(wasContent, mediaType)) continue;
    emit(context, { rule: "response-media-type-added", path: child(now.path, "content", mediaType), document: "revision", operation, detail: `${status} also answered as \`${mediaType}\`` });
  }
}
function schemaFinding(w, kind, path3, field, detail, document = "revision") {
  const rule = schemaRule(w.schemaContext, kind);
  if (!rule) return;
  emit(w.context, { rule, path: path3, document, operation: w.operation, field: field || rootLabel(w.schemaContext), detail });
}
function rootLabel(context) {
  return context === "request-property" ? "request body" : context === "response-property" ? "response body" : "";
}
var COMPONENT_ROOT = /^#\/components\/schemas\/([^/]+)$/;
function componentRoot(path3) {
  const match = COMPONENT_ROOT.exec(path3);
  return match ? match[1].replace(/~1/g, "/").replace(/~0/g, "~") : void 0;
}
function compareSchema(w, was, now, field) {
  compareNormalized(w, normalize(w.context.base, was), normalize(w.context.revision, now), field);
}
function compareNormalized(w, was, now, field) {
  const key = `${w.schemaContext}\0${was.path}\0${now.path}`;
  if (w.visited.has(key)) return;
  w.visited.add(key);
  if (!field) field = now.refName ?? was.refName ?? "";
  if (was.nullable !== now.nullable) {
    if (now.nullable) schemaFinding(w, "became-nullable", now.nullablePath, field, "now nullable");
    else schemaFinding(w, "became-not-nullable", now.origin, field, "no longer nullable");
  }
  const wasDiscriminator = isObject(was.discriminator?.value) ? was.discriminator.value.propertyName : void 0;
  const nowDiscriminator = isObject(now.discriminator?.value) ? now.discriminator.value.propertyName : void 0;
  if (wasDiscriminator !== void 0 && nowDiscriminator !== void 0 && wasDiscriminator !== nowDiscriminator) {
    schemaFinding(w, "discriminator-changed", now.discriminator.path, field, `discriminator \`${String(wasDiscriminator)}\` \u2192 \`${String(nowDiscriminator)}\``);
  }
  if (was.variants || now.variants) {
    if (was.variants && now.variants) compareConstraints(w, was, now, field);
    compareVariants(w, was, now, field);
    return;
  }
  const sameTypes = typesCover(was.types, now.types) && typesCover(now.types, was.types);
  if (!sameTypes) {
    const detail = `type ${showTypes(was.types)} \u2192 ${showTypes(now.types)}`;
    const path3 = now.types ? now.typesPath : now.origin;
    if (w.direction === "request") schemaFinding(w, typesCover(now.types, was.types) ? "type-widened" : "type-changed", path3, field, detail);
    else schemaFinding(w, typesCover(was.types, now.types) ? "type-narrowed" : "type-changed", path3, field, detail);
    if (!typesOverlap(was.types, now.types)) return;
  }
  compareConstraints(w, was, now, field);
  if (isObjectLike(was) || isObjectLike(now)) compareObject(w, was, now, field);
  if (was.items || now.items) {
    compareSchema(
      w,
      was.items ?? { node: {}, path: child(was.path, "items") },
      now.items ?? { node: {}, path: child(now.path, "items") },
      `${field}[]`
    );
  }
}
function isObjectLike(schema) {
  return schema.properties.size > 0 || schema.additional !== void 0 || schema.required.size > 0;
}
function show(value) {
  return value === void 0 ? "none" : typeof value === "string" ? value : canonical(value);
}
function keywordPath(was, now, keyword) {
  return now.keywords.get(keyword)?.path ?? now.origin ?? was.path;
}
function compareConstraints(w, was, now, field) {
  const value = (schema, keyword) => schema.keywords.get(keyword)?.value;
  const wasFormat = value(was, "format");
  const nowFormat = value(now, "format");
  if (wasFormat !== nowFormat) {
    const kind = wasFormat === void 0 ? "format-added" : nowFormat === void 0 ? "format-removed" : "format-changed";
    schemaFinding(w, kind, keywordPath(was, now, "format"), field, `format ${show(wasFormat)} \u2192 ${show(nowFormat)}`);
  }
  const wasEnum = was.enumValues?.value;
  const nowEnum = now.enumValues?.value;
  if (wasEnum && nowEnum) {
    const wasKeys = new Map(wasEnum.map((entry) => [canonical(entry), entry]));
    const nowKeys = new Map(nowEnum.map((entry) => [canonical(entry), entry]));
    for (const [key, entry] of nowKeys) {
      if (!wasKeys.has(key)) schemaFinding(w, "enum-value-added", now.enumValues.path, field, `new value ${canonical(entry)}`);
    }
    for (const [key, entry] of wasKeys) {
      if (!nowKeys.has(key)) schemaFinding(w, "enum-value-removed", now.enumValues.path, field, `value ${canonical(entry)} removed`);
    }
  } else if (nowEnum) {
    schemaFinding(w, "enum-introduced", now.enumValues.path, field, `now one of ${nowEnum.map(canonical).join(", ")}`);
  } else if (wasEnum) {
    schemaFinding(w, "enum-dropped", now.origin, field, `no longer limited to ${wasEnum.map(canonical).join(", ")}`);
  }
  const bounds = [
    ["maxLength", "max-length-decreased", "max-length-increased"],
    ["maxItems", "max-items-decreased", "max-items-increased"]
  ];
  for (const [keyword, tightened, loosened] of bounds) {
    const a = value(was, keyword);
    const b = value(now, keyword);
    if (a === b) continue;
    const tighter2 = a === void 0 || typeof a === "number" && typeof b === "number" && b < a;
    schemaFinding(w, tighter2 ? tightened : loosened, keywordPath(was, now, keyword), field, `${keyword} ${show(a)} \u2192 ${show(b)}`);
  }
  const lower = [
    ["minLength", "min-length-increased", "min-length-decreased"],
    ["minItems", "min-items-increased", "min-items-decreased"]
  ];
  for (const [keyword, tightened, loosened] of lower) {
    const a = numberOr(value(was, keyword), 0);
    const b = numberOr(value(now, keyword), 0);
    if (a === b) continue;
    schemaFinding(w, b > a ? tightened : loosened, keywordPath(was, now, keyword), field, `${keyword} ${show(value(was, keyword))} \u2192 ${show(value(now, keyword))}`);
  }
  compareNumericBound(w, was, now, field, "upper");
  compareNumericBound(w, was, now, field, "lower");
  const wasPattern = value(was, "pattern");
  const nowPattern = value(now, "pattern");
  if (wasPattern !== nowPattern) {
    const kind = wasPattern === void 0 ? "pattern-added" : nowPattern === void 0 ? "pattern-removed" : "pattern-changed";
    schemaFinding(w, kind, keywordPath(was, now, "pattern"), field, `pattern ${show(wasPattern)} \u2192 ${show(nowPattern)}`);
  }
  for (const keyword of OTHER_CONSTRAINTS) {
    const a = value(was, keyword);
    const b = value(now, keyword);
    if (canonical(a) === canonical(b)) continue;
    schemaFinding(w, "constraint-changed", keywordPath(was, now, keyword), field, `${keyword} ${show(a)} \u2192 ${show(b)}`);
  }
  if (w.direction === "request") {
    const a = value(was, "default");
    const b = value(now, "default");
    if (a !== void 0 && canonical(a) !== canonical(b)) {
      schemaFinding(w, "default-changed", keywordPath(was, now, "default"), field, `default ${show(a)} \u2192 ${show(b)}`);
    }
  }
}
function numberOr(value, fallback) {
  return typeof value === "number" ? value : fallback;
}
function numericBound(schema, side) {
  const [inclusive, exclusive] = side === "upper" ? ["maximum", "exclusiveMaximum"] : ["minimum", "exclusiveMinimum"];
  const candidates = [];
  for (const [keyword, isExclusive] of [
    [inclusive, false],
    [exclusive, true]
  ]) {
    const entry = schema.keywords.get(keyword);
    if (entry && typeof entry.value === "number") candidates.push({ value: entry.value, exclusive: isExclusive, keyword, path: entry.path });
  }
  const sign = side === "upper" ? 1 : -1;
  return candidates.sort((a, b) => sign * (a.value - b.value) || Number(b.exclusive) - Number(a.exclusive))[0];
}
function compareNumericBound(w, was, now, field, side) {
  const a = numericBound(was, side);
  const b = numericBound(now, side);
  if (!a && !b) return;
  let tighter2;
  if (!a) tighter2 = true;
  else if (!b) tighter2 = false;
  else {
    const sign = side === "upper" ? 1 : -1;
    const difference = sign * (a.value - b.value);
    if (difference === 0 && a.exclusive === b.exclusive) return;
    tighter2 = difference > 0 || difference === 0 && b.exclusive;
  }
  const kinds = side === "upper" ? ["max-decreased", "max-increased"] : ["min-increased", "min-decreased"];
  const label = (bound) => bound ? `${bound.keyword} ${bound.value}` : side === "upper" ? "maximum none" : "minimum none";
  const detail = a && b && a.keyword === b.keyword ? `${a.keyword} ${a.value} \u2192 ${b.value}` : `${label(a)} \u2192 ${label(b)}`;
  schemaFinding(w, tighter2 ? kinds[0] : kinds[1], b?.path ?? now.origin, field, detail);
}
function compareObject(w, was, now, field) {
  const { context } = w;
  const owner = componentRoot(now.path) ?? componentRoot(was.path) ?? field;
  const name = (property) => owner ? `${owner}.${property}` : property;
  const wasProperties = visibleProperties(w, context.base, was);
  const nowProperties = visibleProperties(w, context.revision, now);
  for (const [property, location] of wasProperties) {
    const match = nowProperties.get(property);
    if (!match) {
      schemaFinding(w, "removed", location.path, name(property), "removed", "base");
      continue;
    }
    const wasRequired = was.required.has(property);
    const nowRequired = now.required.has(property);
    if (!wasRequired && nowRequired) schemaFinding(w, "became-required", match.path, name(property), "now required");
    if (wasRequired && !nowRequired) schemaFinding(w, "became-optional", match.path, name(property), "now optional");
    compareSchema(w, location, match, name(property));
  }
  for (const [property, location] of nowProperties) {
    if (wasProperties.has(property)) continue;
    const required = now.required.has(property);
    schemaFinding(w, required ? "added-required" : "added", location.path, name(property), required ? "new required field" : "new optional field");
  }
  const open = (schema) => ({ node: {}, path: child(schema.path, "unevaluatedProperties") });
  const wasAdditional = was.additional ?? { sealed: false, schema: open(was), path: was.path };
  const nowAdditional = now.additional ?? { sealed: false, schema: open(now), path: now.path };
  if (wasAdditional.sealed && nowAdditional.sealed) return;
  if (nowAdditional.sealed) schemaFinding(w, "sealed", nowAdditional.path, owner, "undeclared fields no longer allowed");
  else if (wasAdditional.sealed) schemaFinding(w, "unsealed", nowAdditional.path, owner, "undeclared fields now allowed");
  else compareSchema(w, wasAdditional.schema, nowAdditional.schema, owner ? `${owner}.*` : "*");
}
function visibleProperties(w, document, schema) {
  const result = /* @__PURE__ */ new Map();
  for (const [name, location] of schema.properties) {
    const property = normalize(document, location);
    if (w.direction === "request" ? property.readOnly : property.writeOnly) continue;
    result.set(name, location);
  }
  return result;
}
function membersOf(document, schema) {
  const schemas = schema.variants ? schema.variants.members.map((member) => normalize(document, member)) : [{ ...schema, nullable: false }];
  return schemas.map((member) => ({ schema: member, label: labelOf(member), signature: signatureOf(document, member) }));
}
function labelOf(schema) {
  if (schema.refName) return `\`${schema.refName}\``;
  const values2 = schema.enumValues?.value;
  return values2 ? `${showTypes(schema.types)} ${values2.map(canonical).join(" | ")}` : showTypes(schema.types);
}
function signatureOf(document, schema) {
  const constants = [];
  for (const [name, location] of schema.properties) {
    const values2 = normalize(document, location).enumValues?.value;
    if (values2?.length === 1) constants.push(`${name}=${canonical(values2[0])}`);
  }
  return [showTypes(schema.types), canonical(schema.enumValues?.value ?? null), constants.sort().join("&")].join("|");
}
function compareVariants(w, was, now, field) {
  const wasMembers = membersOf(w.context.base, was);
  const nowMembers = membersOf(w.context.revision, now);
  const pairs = [];
  const free = new Set(nowMembers);
  const unmatched = [];
  const matchers = [
    (a, b) => a.schema.refName !== void 0 && a.schema.refName === b.schema.refName,
    (a, b) => a.signature === b.signature,
    (a, b) => typesOverlap(a.schema.types, b.schema.types) && a.schema.refName === void 0 && b.schema.refName === void 0,
    (a, b) => typesOverlap(a.schema.types, b.schema.types)
  ];
  let remaining = wasMembers;
  for (const matches2 of matchers) {
    const next = [];
    for (const member of remaining) {
      const match = [...free].find((candidate) => matches2(member, candidate));
      if (match) {
        free.delete(match);
        pairs.push([member, match]);
      } else next.push(member);
    }
    remaining = next;
  }
  unmatched.push(...remaining);
  for (const member of unmatched) schemaFinding(w, "variant-removed", member.schema.origin, field, `alternative ${member.label} removed`, "base");
  for (const member of free) schemaFinding(w, "variant-added", member.schema.origin, field, `new alternative ${member.label}`);
  for (const [a, b] of pairs) compareNormalized(w, a.schema, b.schema, field);
}

// breaking/files.ts
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CORE_SCHEMA, load } from "js-yaml";
import { parse } from "yaml";

// breaking/gate.ts
function parseDeclarations(value) {
  const declarations = [];
  const problems = [];
  if (value === null || value === void 0) return { declarations, problems };
  if (!Array.isArray(value)) return { declarations, problems: ["the declarations must be a YAML list (`[]` for none)"] };
  value.forEach((entry, index) => {
    const at = `entry ${index + 1}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be a mapping with rule, operation or schema, path and reason`);
      return;
    }
    const record = entry;
    const unknown = Object.keys(record).filter((key) => !["rule", "operation", "schema", "path", "reason"].includes(key));
    for (const key of unknown) problems.push(`${at}: unknown field \`${key}\` (expected rule, operation or schema, path, reason)`);
    const text = (key) => typeof record[key] === "string" && record[key].trim() !== "" ? record[key].trim() : void 0;
    const rule = text("rule");
    const path3 = text("path");
    const reason = text("reason");
    const operation = text("operation");
    const schema = text("schema");
    if (!rule) problems.push(`${at}: \`rule\` is missing`);
    else if (!RULES.has(rule)) problems.push(`${at}: \`rule\` ${rule} is not a rule id (see breaking/README.md)`);
    if (!path3) problems.push(`${at}: \`path\` is missing`);
    else if (!path3.startsWith("#/")) problems.push(`${at}: \`path\` must be a JSON path starting with #/`);
    if (!reason) problems.push(`${at}: \`reason\` is missing: say why the break is accepted`);
    else if (/^TODO\b/i.test(reason)) problems.push(`${at}: \`reason\` still says TODO: say why the break is accepted`);
    if (Boolean(operation) === Boolean(schema)) problems.push(`${at}: give exactly one of \`operation\` and \`schema\``);
    if (rule && path3 && reason && !/^TODO\b/i.test(reason) && Boolean(operation) !== Boolean(schema)) {
      declarations.push({ rule, path: path3, reason, ...operation ? { operation } : { schema } });
    }
  });
  return { declarations, problems };
}
function matches(declaration, finding) {
  if (declaration.rule !== finding.rule || declaration.path !== finding.path) return false;
  return declaration.operation !== void 0 ? finding.operation?.operationId === declaration.operation : finding.schema === declaration.schema;
}
function declarationFor(finding) {
  return {
    rule: finding.rule,
    ...finding.schema !== void 0 ? { schema: finding.schema } : { operation: finding.operation?.operationId ?? "" },
    path: finding.path
  };
}
function parseVersion(text) {
  if (typeof text !== "string") return void 0;
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : void 0;
}
function compareVersions(a, b) {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
function evaluateGate(findings2, options = {}) {
  const problems = [];
  const base2 = parseVersion(options.baseVersion);
  const revision2 = parseVersion(options.revisionVersion);
  if (options.baseVersion !== void 0 && !base2) problems.push(`the release's version ${options.baseVersion} is not MAJOR.MINOR.PATCH`);
  if (options.revisionVersion !== void 0 && !revision2) problems.push(`info.version ${options.revisionVersion} is not MAJOR.MINOR.PATCH`);
  if (base2 && revision2 && compareVersions(revision2, base2) < 0) {
    problems.push(`info.version ${options.revisionVersion} is lower than the last release ${options.baseVersion}`);
  }
  const majorBump = Boolean(base2 && revision2 && revision2[0] > base2[0]);
  const declarations = options.declarations ?? [];
  const used = /* @__PURE__ */ new Set();
  const judged = findings2.map((finding) => {
    const declaration = declarations.find((candidate) => matches(candidate, finding));
    if (declaration) used.add(declaration);
    if (!isBreaking(finding.severity)) return { finding, ...declaration ? { declaration } : {} };
    if (declaration) return { finding, allowedBy: "declaration", declaration };
    if (majorBump) return { finding, allowedBy: "major-version" };
    return { finding };
  });
  const undeclared = judged.filter((entry) => isBreaking(entry.finding.severity) && !entry.allowedBy).map((entry) => entry.finding);
  const stale = declarations.filter((declaration) => !used.has(declaration));
  return { judged, undeclared, stale, problems, majorBump, passed: undeclared.length === 0 && stale.length === 0 && problems.length === 0 };
}

// breaking/files.ts
var repoRoot = path.resolve(fileURLToPath(import.meta.url), "../..");
function locations(root = repoRoot) {
  return {
    root,
    document: path.join(root, "generated/openapi.yaml"),
    schemaTypes: path.join(root, "generated/schema.d.ts"),
    releases: path.join(root, "generated/releases"),
    declarations: path.join(root, "spec/breaking-changes.yaml"),
    main: path.join(root, "spec/main.tsp"),
    changelog: path.join(root, "CHANGELOG.md"),
    packageJson: path.join(root, "package.json"),
    packageLock: path.join(root, "package-lock.json"),
    /** The conformance runner's package (docs-platform-conformance), versioned with the contract too. */
    runnerPackageJson: path.join(root, "conformance/package.json")
  };
}
function listReleases(root = repoRoot) {
  const dir = locations(root).releases;
  if (!existsSync(dir)) return [];
  const releases = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const parsed = parseVersion(entry.name);
    if (!entry.isDirectory() || !parsed) continue;
    const releaseDir = path.join(dir, entry.name);
    const document = path.join(releaseDir, "openapi.yaml");
    if (!existsSync(document)) continue;
    releases.push({ version: entry.name, parsed, dir: releaseDir, document, declarations: path.join(releaseDir, "breaking-changes.yaml") });
  }
  return releases.sort((a, b) => compareVersions(a.parsed, b.parsed));
}
function readDocument(file) {
  const value = load(readFileSync(file, "utf8"), { schema: CORE_SCHEMA });
  if (!isObject(value)) throw new Error(`${file} is not an OpenAPI document`);
  return value;
}
function versionOf(document) {
  return isObject(document.info) && typeof document.info.version === "string" ? document.info.version : void 0;
}
function readDeclarations(file) {
  if (!existsSync(file)) return { declarations: [], problems: [] };
  let value;
  try {
    value = parse(readFileSync(file, "utf8"));
  } catch (error) {
    return { declarations: [], problems: [`not valid YAML: ${error instanceof Error ? error.message : error}`] };
  }
  return parseDeclarations(value);
}
function relative(file, root = repoRoot) {
  return path.relative(root, file) || ".";
}

// breaking/report.ts
import { stringify } from "yaml";
var LABELS = {
  "breaking-client": "BREAKING (client)",
  "breaking-implementation": "BREAKING (implementation)",
  warning: "WARNING",
  "non-breaking": "non-breaking"
};
function severityLabel(entry) {
  const label = LABELS[entry.finding.severity];
  if (entry.allowedBy === "declaration") return `${label}, declared`;
  if (entry.allowedBy === "major-version") return `${label}, major version`;
  return label;
}
function showOperation(operation) {
  return `${operation.operationId}  ${operation.method} ${operation.path}`;
}
function showOperations(finding) {
  if (finding.operations.length === 0) return "(no operation)";
  if (finding.operations.length === 1) return showOperation(finding.operations[0]);
  return finding.operations.map((operation) => operation.operationId).join(", ");
}
function groupOf(finding) {
  if (finding.schema !== void 0) return { key: `schema ${finding.schema}`, title: `${finding.schema} (component)` };
  const operation = finding.operation;
  return operation ? { key: `operation ${operation.operationId}`, title: showOperation(operation) } : { key: "document", title: "document" };
}
function groupJudged(judged) {
  const groups = /* @__PURE__ */ new Map();
  for (const entry of judged) {
    const { key, title } = groupOf(entry.finding);
    if (!groups.has(key)) groups.set(key, { title, entries: [] });
    groups.get(key).entries.push(entry);
  }
  return [...groups.values()];
}
function formatReport(verdict2, options) {
  const lines = [];
  const { judged } = verdict2;
  lines.push(`check:breaking: ${options.subject}: ${plural(judged.length, "difference")}`);
  for (const group of groupJudged(judged)) {
    lines.push("", group.title);
    for (const entry of group.entries) {
      const { finding } = entry;
      lines.push(
        `  ${severityLabel(entry)} ${finding.rule}  ${showOperations(finding)}  ${finding.path}${finding.document === "base" ? " (in the release)" : ""}  ${finding.message}`
      );
      if (finding.action && finding.severity !== "non-breaking") lines.push(`      to do: ${finding.action}`);
      if (entry.declaration) lines.push(`      declared: ${entry.declaration.reason}`);
    }
  }
  for (const declaration of verdict2.stale) {
    lines.push(
      "",
      `STALE declaration in ${options.declarationsFile}: ${declaration.rule} ${declaration.operation ?? declaration.schema} ${declaration.path} matches no difference; correct it or remove it`
    );
  }
  for (const problem of verdict2.problems) lines.push("", `PROBLEM: ${problem}`);
  const count = (predicate) => judged.filter(predicate).length;
  const client = verdict2.undeclared.filter((finding) => finding.severity === "breaking-client").length;
  const implementation = verdict2.undeclared.length - client;
  const tally = [
    `${count((entry) => entry.allowedBy === "declaration")} breaking declared`,
    ...verdict2.majorBump ? [`${count((entry) => entry.allowedBy === "major-version")} breaking allowed by the major version`] : [],
    plural(count((entry) => entry.finding.severity === "warning"), "warning"),
    `${count((entry) => entry.finding.severity === "non-breaking")} non-breaking`
  ].join(", ");
  lines.push("");
  if (verdict2.passed) {
    lines.push(`check:breaking: passed: ${tally}.`);
  } else {
    const reasons = [];
    if (verdict2.undeclared.length > 0) {
      reasons.push(`${plural(verdict2.undeclared.length, "undeclared breaking change")} (${client} for clients, ${implementation} for implementations)`);
    }
    if (verdict2.stale.length > 0) reasons.push(plural(verdict2.stale.length, "stale declaration"));
    if (verdict2.problems.length > 0) reasons.push(plural(verdict2.problems.length, "version problem"));
    lines.push(`check:breaking: FAILED: ${reasons.join(", ")}; ${tally}.`);
  }
  if (verdict2.undeclared.length > 0) {
    lines.push(
      `Declare each accepted break in ${options.declarationsFile} (with its reason), or raise the major version in spec/main.tsp (@info):`,
      "",
      stringify(verdict2.undeclared.map((finding) => ({ ...declarationFor(finding), reason: "TODO: why clients and implementations can accept it" }))).trimEnd()
    );
  }
  return `${lines.join("\n")}
`;
}
function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

// breaking/check.ts
var USAGE = `Usage: npm run check:breaking -- [options]

Compares the contract (generated/openapi.yaml) with its last release (generated/releases/<version>/openapi.yaml)
and prints every difference with its rule, severity, operation and JSON path. Fails (exit 1) on a breaking change
that is not declared in spec/breaking-changes.yaml and not allowed by a higher major version, and on a stale
declaration. Rules and declarations: breaking/README.md.

Options:
  --base <version|file>      compare with this release or document instead of the last release
  --revision <file>          the document to check (default generated/openapi.yaml)
  --declarations <file>      the declarations (default spec/breaking-changes.yaml)
  --as-version <version>     judge the revision as if its info.version were this (npm run release uses it)
  --json                     print the verdict as JSON
  -h, --help                 this text
`;
function fail(message) {
  process.stderr.write(`check:breaking: ${message}

${USAGE}`);
  process.exit(2);
}
var values;
try {
  ({ values } = parseArgs({
    options: {
      base: { type: "string" },
      revision: { type: "string" },
      declarations: { type: "string" },
      "as-version": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" }
    }
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
var where = locations();
var revisionFile = path2.resolve(typeof values.revision === "string" ? values.revision : where.document);
var declarationsFile = path2.resolve(typeof values.declarations === "string" ? values.declarations : where.declarations);
var baseFile;
var baseLabel;
if (typeof values.base === "string") {
  const release = parseVersion(values.base) ? listReleases().find((entry) => entry.version === values.base) : void 0;
  if (parseVersion(values.base) && !release) fail(`no release ${values.base} in ${relative(where.releases)}`);
  baseFile = release ? release.document : path2.resolve(values.base);
  baseLabel = release ? `release ${release.version}` : relative(baseFile);
} else {
  const last = listReleases().at(-1);
  if (!last) {
    process.stdout.write(
      `check:breaking: no release recorded yet (none in ${relative(where.releases)}/), nothing to compare; cut the first with \`npm run release -- <version>\`.
`
    );
    process.exit(0);
  }
  baseFile = last.document;
  baseLabel = `release ${last.version}`;
}
for (const file of [baseFile, revisionFile]) if (!existsSync2(file)) fail(`${file} does not exist`);
var base;
var revision;
try {
  base = readDocument(baseFile);
  revision = readDocument(revisionFile);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
var read = readDeclarations(declarationsFile);
if (read.problems.length > 0) {
  process.stdout.write(
    `check:breaking: FAILED: ${relative(declarationsFile)} is not valid:
${read.problems.map((problem) => `  - ${problem}`).join("\n")}
`
  );
  process.exit(1);
}
var revisionVersion = typeof values["as-version"] === "string" ? values["as-version"] : versionOf(revision);
var findings = compareDocuments(base, revision);
var verdict = evaluateGate(findings, {
  baseVersion: versionOf(base),
  revisionVersion,
  declarations: read.declarations
});
if (values.json) {
  process.stdout.write(`${JSON.stringify(verdict, null, 2)}
`);
} else {
  process.stdout.write(
    formatReport(verdict, {
      subject: `${relative(revisionFile)} (${revisionVersion ?? "no version"}) against ${baseLabel}`,
      declarationsFile: relative(declarationsFile)
    })
  );
}
process.exit(verdict.passed ? 0 : 1);
