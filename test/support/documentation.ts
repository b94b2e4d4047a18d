// Finds the schemas, properties and parameters of an OpenAPI document that have no description.
import {
  HTTP_METHODS,
  isReference,
  resolve,
  type OpenApiDocument,
  type Parameter,
  type Reference,
  type Schema,
} from './openapi.ts';

const hasText = (text: string | undefined) => typeof text === 'string' && text.trim() !== '';

/** Locations such as `components.schemas.Space.properties.title`, one per missing description. */
export function findUndocumented(document: OpenApiDocument): string[] {
  const offenders: string[] = [];

  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const where = `components.schemas.${name}`;
    if (!isDocumentedSchema(document, schema)) offenders.push(where);
    offenders.push(...undocumentedProperties(document, schema, where));
  }

  const checkParameters = (parameters: (Parameter | Reference)[] | undefined, where: string) => {
    for (const parameter of parameters ?? []) {
      // A referenced parameter is reported once, at its component.
      if (isReference(parameter)) continue;
      if (!hasText(parameter.description)) offenders.push(`${where}.parameters.${parameter.name} (in ${parameter.in})`);
    }
  };
  for (const [name, parameter] of Object.entries(document.components?.parameters ?? {})) {
    if (!isReference(parameter) && !hasText(parameter.description)) offenders.push(`components.parameters.${name}`);
  }
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    checkParameters(pathItem.parameters, `paths.${path}`);
    for (const method of HTTP_METHODS) {
      checkParameters(pathItem[method]?.parameters, `paths.${path}.${method}`);
    }
  }
  return offenders;
}

// A `$ref` counts as documented when it carries a description or the schema it points to has one.
function isDocumentedSchema(document: OpenApiDocument, schema: Schema): boolean {
  if (hasText(schema.description)) return true;
  return schema.$ref !== undefined && hasText(resolve<Schema>(document, schema).description);
}

function undocumentedProperties(document: OpenApiDocument, schema: Schema, where: string): string[] {
  if (schema.$ref !== undefined) return []; // checked where it is defined
  const offenders: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const propertyWhere = `${where}.properties.${name}`;
    if (!isDocumentedSchema(document, property)) offenders.push(propertyWhere);
    offenders.push(...undocumentedProperties(document, property, propertyWhere));
  }
  for (const keyword of ['items', 'additionalProperties', 'unevaluatedProperties'] as const) {
    const nested = schema[keyword];
    if (typeof nested === 'object') offenders.push(...undocumentedProperties(document, nested, `${where}.${keyword}`));
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    schema[keyword]?.forEach((variant, index) => {
      offenders.push(...undocumentedProperties(document, variant, `${where}.${keyword}[${index}]`));
    });
  }
  return offenders;
}
