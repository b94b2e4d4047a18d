// @ts-check
// Where a place of the emitted OpenAPI document comes from in the TypeSpec: a JSON pointer (a finding's path)
// followed through the program's types (a component by its declared name, an operation by route and verb, then
// properties, items, alternatives, parameters, bodies, answers) to the deepest declaration it reaches.
/** @import { DiagnosticTarget, Model, ModelProperty, Program, Type } from "@typespec/compiler" */
/** @import { HttpOperation } from "@typespec/http" */
import { listServices, navigateTypesInNamespace, resolveEncodedName } from "@typespec/compiler";
import { httpOperations } from "./operations.js";

/**
 * The declared property a property was copied from (a spread alias, `is` or a template gives each use a copy).
 * @param {ModelProperty} property
 */
export function declared(property) {
  let source = property;
  while (source.sourceProperty) source = source.sourceProperty;
  return source;
}

/** @typedef {{ schemas: Map<string, Type>, operations: Map<string, HttpOperation>, fallback: DiagnosticTarget }} Origins */

/** @type {WeakMap<Program, Origins>} */
const built = new WeakMap();

/**
 * The program's named types by the name their component schema has (their declared name: spec/ gives no
 * @friendlyName), and its HTTP operations by `verb path`, as the emitter writes them; made once per program.
 * @param {Program} program
 * @returns {Origins}
 */
export function originsOf(program) {
  let origins = built.get(program);
  if (origins) return origins;
  const services = listServices(program);
  const namespace = services[0]?.type ?? program.getGlobalNamespaceType();
  /** @type {Map<string, Type>} */
  const schemas = new Map();
  /** @param {Type & { name?: string | symbol }} type */
  const add = (type) => {
    if (typeof type.name !== "string" || type.name === "" || !type.node) return;
    // A template declaration is emitted only as its instances, which are named types of their own.
    if ("templateMapper" in type && type.templateMapper === undefined && type.node && "templateParameters" in type.node && type.node.templateParameters.length > 0) return;
    if (!schemas.has(type.name)) schemas.set(type.name, type);
  };
  navigateTypesInNamespace(namespace, { model: add, enum: add, union: add, scalar: add }, { includeTemplateDeclaration: false });
  const operations = new Map(httpOperations(program).map((operation) => [`${operation.verb} ${operation.path}`, operation]));
  origins = { schemas, operations, fallback: namespace };
  built.set(program, origins);
  return origins;
}

/**
 * The segments of a JSON pointer (`#/paths/~1v1~1spaces/get` → `paths`, `/v1/spaces`, `get`).
 * @param {string} pointer
 */
export const segmentsOf = (pointer) =>
  pointer
    .replace(/^#?\//, "")
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));

/**
 * The property of a model (or of a model it extends) that the document names `name`.
 * @param {Program} program
 * @param {Model} model
 * @param {string} name
 * @returns {ModelProperty | undefined}
 */
function propertyNamed(program, model, name) {
  for (let current = /** @type {Model | undefined} */ (model); current; current = current.baseModel) {
    for (const property of current.properties.values()) if (resolveEncodedName(program, property, "application/json") === name) return property;
  }
  return undefined;
}

/**
 * What a walk reached: the declaration to report at, and the type there.
 * @typedef {{ target: DiagnosticTarget, type: Type }} Reached
 */

/**
 * Follows `segments` below a schema of type `type` (`properties/role`, `items`, `anyOf/1`…), as far as the types go.
 * @param {Program} program
 * @param {Reached} start
 * @param {string[]} segments
 * @returns {Reached}
 */
export function walkSchema(program, start, segments) {
  let { target, type } = start;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (segment === "properties" && type.kind === "Model") {
      const property = propertyNamed(program, type, segments[++index] ?? "");
      if (!property) break;
      target = declared(property);
      type = property.type;
    } else if ((segment === "items" || segment === "additionalProperties") && type.kind === "Model" && type.indexer) {
      type = type.indexer.value;
    } else if ((segment === "anyOf" || segment === "oneOf") && type.kind === "Union") {
      const variant = [...type.variants.values()].filter((each) => !(each.type.kind === "Intrinsic" && each.type.name === "null"))[Number(segments[++index])];
      if (!variant) break;
      type = variant.type;
    } else if (segment === "allOf" || segment === "anyOf" || segment === "oneOf") {
      // A reference wrapped with its constraints (`allOf: [$ref]`), or `null` beside it: the same type.
      index++;
    } else break;
  }
  return { target, type };
}

/**
 * The place of an operation a pointer names below it (`parameters/2/schema`, `requestBody/content/…/schema/…`,
 * `responses/200/content/…/schema/…`, `responses/200/headers/etag`).
 * @param {Program} program
 * @param {HttpOperation} operation
 * @param {string[]} rest
 * @param {{ fields: string[], emitted: any }} finding  its fields and the emitted operation
 * @returns {Reached}
 */
function walkOperation(program, operation, rest, finding) {
  /** @type {Reached} */
  const at = { target: operation.operation, type: operation.operation };
  const schemaAt = (/** @type {number} */ from) => rest.indexOf("schema", from);
  if (rest[0] === "parameters") {
    const emitted = finding.emitted?.parameters?.[Number(rest[1])];
    const name = emitted?.name ?? /^[^.[]+/.exec(finding.fields[0] ?? "")?.[0];
    const parameter = operation.parameters.parameters.find((each) => each.name === name && (!emitted || each.type === emitted.in));
    if (!parameter) return at;
    return walkSchema(program, { target: declared(parameter.param), type: parameter.param.type }, rest.slice(schemaAt(2) + 1));
  }
  if (rest[0] === "requestBody") {
    const body = operation.parameters.body;
    if (!body || !("type" in body)) return at;
    const start = { target: body.property ? declared(body.property) : at.target, type: body.type };
    return schemaAt(1) < 0 ? start : walkSchema(program, start, rest.slice(schemaAt(1) + 1));
  }
  if (rest[0] === "responses" && rest[1] !== undefined) {
    const status = rest[1];
    const response = operation.responses.find(({ statusCodes }) =>
      statusCodes === "*" ? status === "default" : typeof statusCodes === "number" ? String(statusCodes) === status : status === `${String(statusCodes.start)[0]}XX`,
    );
    if (!response) return at;
    const declaredAt = { target: response.type.kind === "Model" && response.type.name ? response.type : at.target, type: response.type };
    if (rest[2] === "headers") {
      const header = response.responses.map((content) => content.headers?.[rest[3] ?? ""] ?? Object.values(content.headers ?? {}).find((each) => each.name.toLowerCase() === rest[3]?.toLowerCase())).find(Boolean);
      return header ? { target: declared(header), type: header.type } : declaredAt;
    }
    const body = response.responses.map((content) => content.body).find((each) => each && "type" in each);
    if (!body || !("type" in body) || schemaAt(2) < 0) return declaredAt;
    return walkSchema(program, { target: body.property ? declared(body.property) : declaredAt.target, type: body.type }, rest.slice(schemaAt(2) + 1));
  }
  return at;
}

/**
 * The TypeSpec declaration a finding comes from: the deepest one its path reaches in the program; for an enum value
 * removed, the enum (or union) it was removed from; for one added, its member.
 * @param {Program} program
 * @param {any} document  the emitted document
 * @param {{ path: string, rule: string, fields: string[], values?: unknown[], operation?: { operationId: string } }} finding
 * @returns {DiagnosticTarget}
 */
export function originOf(program, document, finding) {
  const origins = originsOf(program);
  const segments = segmentsOf(finding.path);
  /** @type {Reached | undefined} */
  let reached;
  if (segments[0] === "components" && segments[1] === "schemas") {
    const type = origins.schemas.get(segments[2] ?? "");
    if (type) reached = walkSchema(program, { target: type, type }, segments.slice(3));
  } else if (segments[0] === "paths" && segments[2] !== undefined) {
    const operation = origins.operations.get(`${segments[2]} ${segments[1]}`);
    if (operation) reached = walkOperation(program, operation, segments.slice(3), { fields: finding.fields, emitted: document?.paths?.[segments[1] ?? ""]?.[segments[2]] });
    else {
      // An operation removed: where the operations of its path are declared, when some are left.
      const sibling = [...origins.operations.values()].find((each) => each.path === segments[1])?.operation;
      const container = sibling?.interface ?? sibling?.namespace;
      if (container) reached = { target: container, type: container };
    }
  }
  if (!reached) return origins.fallback;
  return valueTarget(reached, finding) ?? reached.target;
}

/**
 * For a finding about enum values, the enum or union that lists them (a value removed), or the member (a value added).
 * @param {Reached} reached
 * @param {{ rule: string, values?: unknown[] }} finding
 * @returns {DiagnosticTarget | undefined}
 */
function valueTarget(reached, finding) {
  if (!/-enum-value-(added|removed)$/.test(finding.rule)) return undefined;
  /** @type {Type} */
  let type = reached.type;
  if (type.kind === "EnumMember") type = type.enum;
  if (type.kind !== "Enum" && type.kind !== "Union") return undefined;
  if (finding.rule.endsWith("-removed")) return type.name ? type : undefined;
  const value = finding.values?.[0];
  if (type.kind === "Enum") return [...type.members.values()].find((member) => (member.value ?? member.name) === value);
  return [...type.variants.values()].find((variant) => "value" in variant.type && variant.type.value === value);
}

