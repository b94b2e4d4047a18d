// Every rule of the comparison: its id, its severity, what it means and what a client (or an implementation) must do
// about it. Schema rules exist once per context (request body, request parameter, response body, response header),
// with the severity their direction gives them (breaking/README.md, "Severities" and "Rules").

export type Severity = 'breaking-client' | 'breaking-source' | 'breaking-implementation' | 'warning' | 'non-breaking';

export const SEVERITIES: readonly Severity[] = ['breaking-client', 'breaking-source', 'breaking-implementation', 'warning', 'non-breaking'];

export function isBreaking(severity: Severity): boolean {
  return severity === 'breaking-client' || severity === 'breaking-source' || severity === 'breaking-implementation';
}

/** Who a finding of each severity breaks, for the messages. */
export const WHO: Record<Severity, string> = {
  'breaking-client': 'breaks clients in use',
  'breaking-source': "breaks typed clients' source (the wire is unchanged)",
  'breaking-implementation': 'breaks implementations of the contract',
  warning: 'may break clients',
  'non-breaking': 'breaks no one',
};

export type Direction = 'request' | 'response';

/** Where a schema sits: its rules are named `<context>-<kind>`. */
export type SchemaContext = 'request-property' | 'request-parameter' | 'response-property' | 'response-header';

export const SCHEMA_CONTEXTS: readonly SchemaContext[] = [
  'request-property',
  'request-parameter',
  'response-property',
  'response-header',
];

export function directionOf(context: SchemaContext): Direction {
  return context.startsWith('request') ? 'request' : 'response';
}

interface KindSide {
  severity: Severity;
  /** What the change means, for the rules table. */
  summary: string;
  /** What a client (or, for breaking-implementation, an implementation) must do. */
  action?: string;
}

interface Kind {
  request?: KindSide;
  response?: KindSide;
  /** A change that shows the rule, for the rules table. */
  example: string;
}

const BC = 'breaking-client' as const;
const BI = 'breaking-implementation' as const;

/** Changes of one schema, reported in each of the four contexts. */
const SCALAR_KINDS = {
  'type-changed': {
    example: '`type: string` → `type: integer`',
    request: { severity: BC, summary: 'a type that was accepted no longer is', action: 'Send values of the new type.' },
    response: {
      severity: BC,
      summary: 'the value may now be of a type it could not be before',
      action: 'Read values of the new type.',
    },
  },
  'type-widened': {
    example: '`type: integer` → `type: number`',
    request: {
      severity: BI,
      summary: 'values of more types are accepted',
      action: 'Implementations must accept and handle values of the added types.',
    },
  },
  'type-narrowed': {
    example: '`type: number` → `type: integer`',
    response: {
      severity: BI,
      summary: 'fewer types may be answered',
      action: 'Implementations must answer only values of the remaining types.',
    },
  },
  'became-nullable': {
    example: '`type: string` → `type: [string, "null"]` (or `anyOf` with `type: null`)',
    request: { severity: BI, summary: '`null` is now accepted', action: 'Implementations must accept `null` and handle it.' },
    response: { severity: BC, summary: 'the value may now be `null`', action: 'Handle `null` where you read the value.' },
  },
  'became-not-nullable': {
    example: '`type: [string, "null"]` → `type: string`',
    request: { severity: BC, summary: '`null` is no longer accepted', action: 'Stop sending `null`; leave the field out or send a value.' },
    response: { severity: BI, summary: 'the value may no longer be `null`', action: 'Implementations must not answer `null`.' },
  },
  'format-added': {
    example: '`type: string` → `type: string, format: uri`',
    request: { severity: BC, summary: 'values must now match a format', action: 'Send values in the new format.' },
    response: { severity: BI, summary: 'values must now match a format', action: 'Implementations must answer values in the new format.' },
  },
  'format-removed': {
    example: '`format: date-time` removed',
    request: {
      severity: BI,
      summary: 'values of any format are accepted',
      action: 'Implementations must accept values that do not match the old format.',
    },
    response: { severity: BC, summary: 'values no longer follow a format', action: 'Stop relying on the old format when reading.' },
  },
  'format-changed': {
    example: '`format: date-time` → `format: date`',
    request: { severity: BC, summary: 'values must match another format', action: 'Send values in the new format.' },
    response: { severity: BC, summary: 'values follow another format', action: 'Read values in the new format.' },
  },
  'enum-value-added': {
    example: '`enum: [website]` → `enum: [website, git]`',
    request: {
      severity: BI,
      summary: 'a new value is accepted',
      action: 'Implementations must handle the new value (an exhaustive switch over the values fails to compile or falls through).',
    },
    response: {
      severity: 'warning',
      summary: 'a new value may be answered',
      action: 'Handle the new value where you switch over the values.',
    },
  },
  'enum-value-removed': {
    example: '`enum: [a, b]` → `enum: [a]`',
    request: { severity: BC, summary: 'a value is no longer accepted', action: 'Stop sending the removed value.' },
    response: { severity: BI, summary: 'a value may no longer be answered', action: 'Implementations must stop answering the removed value.' },
  },
  'enum-introduced': {
    example: '`type: string` → `type: string, enum: [a, b]`',
    request: { severity: BC, summary: 'only listed values are accepted', action: 'Send one of the listed values.' },
    response: { severity: BI, summary: 'only listed values may be answered', action: 'Implementations must answer only listed values.' },
  },
  'enum-dropped': {
    example: '`enum: [a, b]` → `type: string`',
    request: { severity: BI, summary: 'any value is accepted', action: 'Implementations must handle values outside the old list.' },
    response: { severity: 'warning', summary: 'any value may be answered', action: 'Handle values outside the old list.' },
  },
  'max-length-decreased': {
    example: '`maxLength: 255` → `maxLength: 100` (or set where there was none)',
    request: { severity: BC, summary: 'shorter values only', action: 'Send values no longer than the new maximum.' },
    response: { severity: BI, summary: 'shorter values only', action: 'Implementations must answer values no longer than the new maximum.' },
  },
  'max-length-increased': {
    example: '`maxLength: 100` → `maxLength: 255` (or removed)',
    request: { severity: BI, summary: 'longer values accepted', action: 'Implementations must accept and store the longer values.' },
    response: { severity: BC, summary: 'longer values may be answered', action: 'Accept longer values where you read them.' },
  },
  'min-length-increased': {
    example: '`minLength: 1` → `minLength: 2` (or set where there was none)',
    request: { severity: BC, summary: 'longer values only', action: 'Send values at least as long as the new minimum.' },
    response: { severity: BI, summary: 'longer values only', action: 'Implementations must answer values at least as long as the new minimum.' },
  },
  'min-length-decreased': {
    example: '`minLength: 2` → `minLength: 1` (or removed)',
    request: { severity: BI, summary: 'shorter values accepted', action: 'Implementations must accept the shorter values.' },
    response: { severity: BC, summary: 'shorter values may be answered', action: 'Accept shorter (or empty) values where you read them.' },
  },
  'max-decreased': {
    example: '`maximum: 1000` → `maximum: 100` (or `exclusiveMaximum`, or set where there was none)',
    request: { severity: BC, summary: 'smaller numbers only', action: 'Send numbers within the new maximum.' },
    response: { severity: BI, summary: 'smaller numbers only', action: 'Implementations must answer numbers within the new maximum.' },
  },
  'max-increased': {
    example: '`maximum: 100` → `maximum: 1000` (or removed)',
    request: { severity: BI, summary: 'larger numbers accepted', action: 'Implementations must accept the larger numbers.' },
    response: { severity: BC, summary: 'larger numbers may be answered', action: 'Accept larger numbers where you read them.' },
  },
  'min-increased': {
    example: '`minimum: 0` → `minimum: 1` (or set where there was none)',
    request: { severity: BC, summary: 'larger numbers only', action: 'Send numbers within the new minimum.' },
    response: { severity: BI, summary: 'larger numbers only', action: 'Implementations must answer numbers within the new minimum.' },
  },
  'min-decreased': {
    example: '`minimum: 1` → `minimum: 0` (or removed)',
    request: { severity: BI, summary: 'smaller numbers accepted', action: 'Implementations must accept the smaller numbers.' },
    response: { severity: BC, summary: 'smaller numbers may be answered', action: 'Accept smaller numbers where you read them.' },
  },
  'max-items-decreased': {
    example: '`maxItems: 100` → `maxItems: 10` (or set where there was none)',
    request: { severity: BC, summary: 'fewer items only', action: 'Send no more items than the new maximum.' },
    response: { severity: BI, summary: 'fewer items only', action: 'Implementations must answer no more items than the new maximum.' },
  },
  'max-items-increased': {
    example: '`maxItems: 10` → `maxItems: 100` (or removed)',
    request: { severity: BI, summary: 'more items accepted', action: 'Implementations must accept the larger arrays.' },
    response: { severity: BC, summary: 'more items may be answered', action: 'Accept larger arrays where you read them.' },
  },
  'min-items-increased': {
    example: '`minItems: 0` → `minItems: 1` (or set where there was none)',
    request: { severity: BC, summary: 'more items required', action: 'Send at least the new minimum of items.' },
    response: { severity: BI, summary: 'more items required', action: 'Implementations must answer at least the new minimum of items.' },
  },
  'min-items-decreased': {
    example: '`minItems: 1` → `minItems: 0` (or removed)',
    request: { severity: BI, summary: 'fewer items accepted', action: 'Implementations must accept the smaller (or empty) arrays.' },
    response: { severity: BC, summary: 'fewer items may be answered', action: 'Accept smaller (or empty) arrays where you read them.' },
  },
  'pattern-added': {
    example: '`pattern: ^[a-z]+$` set where there was none',
    request: { severity: BC, summary: 'values must now match a pattern', action: 'Send values that match the pattern.' },
    response: { severity: BI, summary: 'values must now match a pattern', action: 'Implementations must answer values that match the pattern.' },
  },
  'pattern-removed': {
    example: '`pattern: ^[a-z]+$` removed',
    request: { severity: BI, summary: 'values of any shape are accepted', action: 'Implementations must accept values that do not match the old pattern.' },
    response: { severity: BC, summary: 'values no longer follow a pattern', action: 'Stop relying on the old pattern when reading.' },
  },
  'pattern-changed': {
    example: '`pattern: ^[a-z]+$` → `pattern: ^[a-z0-9]+$`',
    request: { severity: BC, summary: 'values must match another pattern', action: 'Send values that match the new pattern.' },
    response: { severity: BC, summary: 'values follow another pattern', action: 'Read values that match the new pattern.' },
  },
  'constraint-changed': {
    example: '`multipleOf: 2` → `multipleOf: 3` (any other validation keyword neither tighter nor looser: `not`, `propertyNames`, `patternProperties`, …)',
    request: { severity: BC, summary: 'another validation keyword changed', action: 'Send values that satisfy the new constraint.' },
    response: { severity: BC, summary: 'another validation keyword changed', action: 'Read values under the new constraint.' },
  },
  'constraint-tightened': {
    example: '`maxProperties: 25` → `maxProperties: 10` (or `minProperties`, `maxContains`, `minContains` raised or lowered, `uniqueItems: true` set, `multipleOf: 2` → `4`)',
    request: { severity: BC, summary: 'another validation keyword accepts fewer values', action: 'Send values that satisfy the new constraint.' },
    response: { severity: BI, summary: 'another validation keyword accepts fewer values', action: 'Implementations must answer values that satisfy the new constraint.' },
  },
  'constraint-loosened': {
    example: '`maxProperties: 10` → `maxProperties: 25` (or removed, `uniqueItems: true` removed, `multipleOf: 4` → `2`)',
    request: {
      severity: BI,
      summary: 'another validation keyword accepts more values',
      action: 'Implementations must accept the values the old constraint refused.',
    },
    response: { severity: BC, summary: 'another validation keyword accepts more values', action: 'Accept values the old constraint ruled out where you read them.' },
  },
  'default-added': {
    example: '`default: 20` set where there was none',
    request: {
      severity: BI,
      summary: 'leaving the value out now means the default',
      action: 'Implementations must apply the default when the value is left out.',
    },
    response: { severity: 'non-breaking', summary: 'an absent value now means the default' },
  },
  'default-removed': {
    example: '`default: 50` removed',
    request: {
      severity: BC,
      summary: 'leaving the value out no longer means the old default',
      action: 'Send the old default explicitly where you relied on it.',
    },
    response: { severity: BC, summary: 'an absent value no longer means the old default', action: 'Stop filling in the old default for an absent value.' },
  },
  'default-changed': {
    example: '`default: 50` → `default: 20`',
    request: {
      severity: BC,
      summary: 'leaving the value out now means something else',
      action: 'Send the old default explicitly where you relied on it.',
    },
    response: { severity: BC, summary: 'an absent value now means another default', action: 'Fill in the new default for an absent value.' },
  },
  deprecated: {
    example: '`deprecated: true` set on a field, parameter or header',
    request: { severity: 'non-breaking', summary: 'the value is deprecated: it still works, and may go in a later major version' },
    response: { severity: 'non-breaking', summary: 'the value is deprecated: it is still answered, and may go in a later major version' },
  },
  undeprecated: {
    example: '`deprecated: true` removed',
    request: { severity: 'non-breaking', summary: 'the value is no longer deprecated' },
    response: { severity: 'non-breaking', summary: 'the value is no longer deprecated' },
  },
  'variant-added': {
    example: '`anyOf: [A, B]` → `anyOf: [A, B, C]` (or a plain schema → `anyOf`)',
    request: { severity: BI, summary: 'a new alternative is accepted', action: 'Implementations must accept and handle the new alternative.' },
    response: { severity: BC, summary: 'a new alternative may be answered', action: 'Handle the new alternative where you read the value.' },
  },
  'variant-removed': {
    example: '`anyOf: [A, B, C]` → `anyOf: [A, B]`',
    request: { severity: BC, summary: 'an alternative is no longer accepted', action: 'Stop sending the removed alternative.' },
    response: { severity: BI, summary: 'an alternative may no longer be answered', action: 'Implementations must stop answering the removed alternative.' },
  },
  'discriminator-changed': {
    example: '`discriminator.propertyName: kind` → `type`',
    request: { severity: BC, summary: 'the alternatives are told apart by another property', action: 'Send the new discriminating property.' },
    response: { severity: BC, summary: 'the alternatives are told apart by another property', action: 'Tell the alternatives apart by the new property.' },
  },
  'discriminator-tag-added': {
    example: 'tags `cat`, `dog` → `cat`, `dog`, `bird` (a new member, or a value added to a member’s tag)',
    request: {
      severity: BI,
      summary: 'a new tag of a discriminated union is accepted, with the alternative it selects',
      action: 'Implementations must accept the new tag and handle the alternative it selects.',
    },
    response: {
      severity: BC,
      summary: 'a new tag of a discriminated union may be answered: its tags are exhaustive, and clients dispatch on them',
      action: 'Handle the new tag (and the alternative it selects) where you dispatch on the tag.',
    },
  },
  'discriminator-tag-removed': {
    example: 'tags `cat`, `dog`, `bird` → `cat`, `dog` (a member removed, or a value taken out of its tag)',
    request: { severity: BC, summary: 'a tag of a discriminated union is no longer accepted', action: 'Stop sending the removed tag and its alternative.' },
    response: {
      severity: BI,
      summary: 'a tag of a discriminated union is no longer answered: clients receive less',
      action: 'Implementations must stop answering the removed tag (and the alternative it selected).',
    },
  },
  'discriminator-tag-renamed': {
    example: '`type: siteSpaces` → `type: site-spaces` (the same alternative)',
    request: { severity: BC, summary: 'an alternative of a discriminated union is accepted under another tag only', action: 'Send the new tag.' },
    response: { severity: BC, summary: 'an alternative of a discriminated union is answered under another tag', action: 'Dispatch on the new tag.' },
  },
  'discriminator-mapping-changed': {
    example: '`mapping: {dog: Dog}` → `mapping: {dog: Wolf}`',
    request: { severity: BC, summary: 'a tag of a discriminated union selects another alternative', action: 'Send the fields of the alternative the tag now selects.' },
    response: { severity: BC, summary: 'a tag of a discriminated union selects another alternative', action: 'Read the alternative the tag now selects.' },
  },
} satisfies Record<string, Kind>;

/** Changes of an object's properties; always named `request-property-…` or `response-property-…`. */
const OBJECT_KINDS = {
  removed: {
    example: 'property `nickname` removed',
    request: { severity: BC, summary: 'a field that was accepted is not any more', action: 'Stop sending the field.' },
    response: { severity: BC, summary: 'a field is no longer answered', action: 'Stop reading the field.' },
  },
  'removed-without-deprecation': {
    example: 'property `nickname` removed, never `deprecated: true` in a release',
    request: { severity: BC, summary: 'a field that was accepted is not any more, and the release did not deprecate it first', action: 'Stop sending the field. Contract authors: deprecate it in a release first, and remove it after its sunset.' },
    response: { severity: BC, summary: 'a field is no longer answered, and the release did not deprecate it first', action: 'Stop reading the field. Contract authors: deprecate it in a release first, and remove it after its sunset.' },
  },
  'removed-before-sunset': {
    example: 'property `nickname` removed before its `x-sunset: 2027-01-01`',
    request: { severity: BC, summary: 'a deprecated field is gone before its sunset (`x-sunset`): refused, whatever is declared', action: 'Keep the field until its sunset day.' },
    response: { severity: BC, summary: 'a deprecated field is no longer answered before its sunset (`x-sunset`): refused, whatever is declared', action: 'Keep the field until its sunset day.' },
  },
  added: {
    example: 'optional property `nickname` added',
    request: {
      severity: BI,
      summary: 'a new optional field is accepted',
      action: 'Implementations must accept the field and act on it (or it is silently ignored).',
    },
    response: { severity: 'non-breaking', summary: 'a new optional field may be answered' },
  },
  'added-required': {
    example: 'required property `nickname` added',
    request: { severity: BC, summary: 'a new field must be sent', action: 'Send the new field.' },
    response: { severity: BI, summary: 'a new field must always be answered', action: 'Implementations must answer the new field.' },
  },
  'became-required': {
    example: '`nickname` added to `required`',
    request: { severity: BC, summary: 'an optional field must now be sent', action: 'Always send the field.' },
    response: { severity: BI, summary: 'an optional field must now always be answered', action: 'Implementations must always answer the field.' },
  },
  'became-optional': {
    example: '`revision` removed from `required`',
    request: { severity: BI, summary: 'a required field may now be left out', action: 'Implementations must handle the field being absent.' },
    response: { severity: BC, summary: 'a field that was always answered may now be absent', action: 'Check that the field is present before reading it.' },
  },
  sealed: {
    example: '`unevaluatedProperties: {not: {}}` (or `false`) set, or a map’s value schema restricted to none',
    request: { severity: BC, summary: 'fields the object does not declare are refused', action: 'Send only the declared fields.' },
    response: { severity: BI, summary: 'undeclared fields may no longer be answered', action: 'Implementations must answer only the declared fields.' },
  },
  unsealed: {
    example: '`unevaluatedProperties: {not: {}}` removed',
    request: { severity: BI, summary: 'fields the object does not declare are accepted', action: 'Implementations must accept (or ignore) undeclared fields.' },
    response: { severity: 'non-breaking', summary: 'undeclared fields may be answered' },
  },
  'became-read-only': {
    example: '`readOnly: true` set on a field that requests send',
    request: {
      severity: BC,
      summary: 'a field that was sent is now set by the server only (read-only)',
      action: 'Stop sending the field: the server sets it, and a validating server refuses it.',
    },
  },
  'became-writable': {
    example: '`readOnly: true` removed',
    request: {
      severity: BI,
      summary: 'a field the server set (read-only) is now accepted in requests',
      action: 'Implementations must accept the field and act on it.',
    },
  },
  'became-write-only': {
    example: '`writeOnly: true` set on a field that answers carry',
    response: { severity: BC, summary: 'a field that was answered is now write-only: never answered', action: 'Stop reading the field.' },
  },
  'became-readable': {
    example: '`writeOnly: true` removed',
    response: { severity: 'non-breaking', summary: 'a write-only field is now answered' },
  },
} satisfies Record<string, Kind>;

type Kinds = typeof SCALAR_KINDS;
type ScalarKind = keyof Kinds;
type ObjectKinds = typeof OBJECT_KINDS;
type ObjectKind = keyof ObjectKinds;
type KindsFor<D extends Direction> = { [K in ScalarKind]: Kinds[K] extends Record<D, KindSide> ? K : never }[ScalarKind];
type ObjectKindsFor<D extends Direction> = { [K in ObjectKind]: ObjectKinds[K] extends Record<D, KindSide> ? K : never }[ObjectKind];

export type SchemaKind = ScalarKind | ObjectKind;

/** Rules about operations, parameters, bodies, statuses, headers, security and components. */
const OPERATION_RULES = {
  'schema-dialect-changed': {
    severity: BC,
    summary: 'the schemas are read in another JSON Schema dialect (`jsonSchemaDialect`): any keyword may validate otherwise',
    action: 'Validate, and generate code, with the new dialect; check what your tools make of the schemas under it.',
    example: '`https://spec.openapis.org/oas/3.1/dialect/base` → `https://json-schema.org/draft/2019-09/schema`',
  },
  'schema-dialect-declared': {
    severity: 'non-breaking',
    summary: 'the document declares the dialect its schemas were read in by default (OpenAPI 3.1’s base dialect): tools that do not apply the default read them as written',
    example: '`jsonSchemaDialect: https://spec.openapis.org/oas/3.1/dialect/base` added',
  },
  'schema-dialect-undeclared': {
    severity: 'warning',
    summary: 'the document no longer declares its dialect: the default is the same, but a tool that does not apply it reads the schemas in another one (Prism: draft-07, without `unevaluatedProperties`)',
    action: 'Read the schemas as JSON Schema 2020-12 (OpenAPI 3.1’s base dialect): tell your validator so.',
    example: '`jsonSchemaDialect: https://spec.openapis.org/oas/3.1/dialect/base` removed',
  },
  'operation-added': {
    severity: 'non-breaking',
    summary: 'a new operation',
    example: '`GET /v1/spaces/{spaceId}/summary` added',
  },
  'operation-removed': {
    severity: BC,
    summary: 'an operation (its path and method) is gone',
    action: 'Stop calling the operation; use its replacement named in the notes.',
    example: '`DELETE /v1/spaces/{spaceId}` removed',
  },
  'operation-removed-without-deprecation': {
    severity: BC,
    summary: 'an operation is gone that the release did not deprecate first',
    action: 'Stop calling the operation. Contract authors: deprecate it in a release first (with its reason, successor and sunset), and remove it after the sunset.',
    example: '`DELETE /v1/spaces/{spaceId}` removed, never `deprecated: true` in a release',
  },
  'operation-removed-before-sunset': {
    severity: BC,
    summary: 'a deprecated operation is gone before its sunset (`x-sunset`): refused, whatever is declared',
    action: 'Keep the operation until its sunset day; its callers were promised it until then.',
    example: '`DELETE /v1/spaces/{spaceId}` removed before its `x-sunset: 2027-01-01`',
  },
  'operation-id-changed': {
    severity: 'breaking-source',
    summary: 'the operation id changed: the same request and answer, but typed clients name the operation by its id',
    action: 'Use the new operation id where your code names the operation (`operations[…]`, generated method names); the request and the answer are unchanged.',
    example: '`getSpace` → `readSpace`',
  },
  'operation-path-changed': {
    severity: BC,
    summary: 'the operation moved to another path or method',
    action: 'Call the operation at its new path and method.',
    example: '`POST /v1/spaces/{spaceId}/copy` → `POST /v1/spaces/{spaceId}/duplicate`',
  },
  'operation-deprecated': {
    severity: 'non-breaking',
    summary: 'the operation is now deprecated',
    example: '`deprecated: true` set',
  },
  'operation-undeprecated': {
    severity: 'non-breaking',
    summary: 'the operation is no longer deprecated',
    example: '`deprecated: true` removed',
  },
  'operation-security-changed': {
    severity: BC,
    summary: 'a way of authenticating the operation accepted before is refused',
    action: 'Authenticate the way the operation now requires.',
    example: '`security: [{BearerAuth: []}]` → `security: [{ApiKey: []}]`',
  },
  'operation-security-alternative-added': {
    severity: BI,
    summary: 'a new way of authenticating (or none) is accepted',
    action: 'Implementations must accept the new way of authenticating.',
    example: '`security: [{BearerAuth: []}]` → `security: [{BearerAuth: []}, {}]`',
  },
  'security-scheme-changed': {
    severity: BC,
    summary: 'a security scheme the operations use is defined differently (its type, `scheme`, `in`/`name`, flows or scopes)',
    action: 'Send credentials the way the scheme now defines.',
    example: '`BearerAuth` `scheme: Bearer` → `type: apiKey`',
  },
  'security-scheme-renamed': {
    severity: 'non-breaking',
    summary: 'a security scheme has a new name and the same definition: the same credentials are sent and accepted',
    action: 'Where settings are keyed by the scheme’s name (a generated client’s credentials, a gateway’s configuration), use the new name; nothing changes on the wire.',
    example: '`securitySchemes.BearerAuth` → `securitySchemes.HttpBearer`, the same `type: http, scheme: Bearer`',
  },
  'schema-removed': {
    severity: 'breaking-source',
    summary: 'a named schema is gone, and with it its type in the generated types (`components["schemas"][…]`); what changed on the wire is reported where it is used',
    action: 'Use the type that replaces it where your code names it.',
    example: '`components.schemas.SpaceLink` removed',
  },
  'schema-renamed': {
    severity: 'breaking-source',
    summary: 'a schema has a new name and the same shape; its type in the generated types is renamed',
    action: 'Rename the type where your code names it (`components["schemas"]["Old"]` → `["New"]`); nothing changes on the wire.',
    example: '`components.schemas.SpaceUrls` → `components.schemas.SpaceLinks`, the same properties',
  },
  'request-parameter-added': {
    severity: BI,
    summary: 'a new optional parameter is accepted',
    action: 'Implementations must accept the parameter and act on it.',
    example: 'optional query parameter `search` added',
  },
  'request-parameter-added-required': {
    severity: BC,
    summary: 'a new parameter must be sent',
    action: 'Send the new parameter.',
    example: 'required query parameter `scope` added',
  },
  'request-parameter-removed': {
    severity: BC,
    summary: 'a parameter that was accepted is not any more',
    action: 'Stop sending the parameter.',
    example: 'query parameter `search` removed',
  },
  'request-parameter-removed-without-deprecation': {
    severity: BC,
    summary: 'a parameter that was accepted is not any more, and the release did not deprecate it first',
    action: 'Stop sending the parameter. Contract authors: deprecate it in a release first, and remove it after its sunset.',
    example: 'query parameter `search` removed, never `deprecated: true` in a release',
  },
  'request-parameter-removed-before-sunset': {
    severity: BC,
    summary: 'a deprecated parameter is gone before its sunset (`x-sunset`): refused, whatever is declared',
    action: 'Keep the parameter until its sunset day.',
    example: 'query parameter `search` removed before its `x-sunset: 2027-01-01`',
  },
  'request-parameter-became-required': {
    severity: BC,
    summary: 'an optional parameter must now be sent',
    action: 'Always send the parameter.',
    example: 'query parameter `limit`: `required: false` → `true`',
  },
  'request-parameter-became-optional': {
    severity: BI,
    summary: 'a required parameter may now be left out',
    action: 'Implementations must handle the parameter being absent.',
    example: 'query parameter `scope`: `required: true` → `false`',
  },
  'request-parameter-location-changed': {
    severity: BC,
    summary: 'a parameter moved (`in` changed)',
    action: 'Send the parameter in its new place.',
    example: '`shareKey`: `in: query` → `in: header`',
  },
  'request-parameter-style-changed': {
    severity: BC,
    summary: 'a parameter is serialised with another `style`',
    action: 'Serialise the parameter with the new style.',
    example: '`style: form` → `style: pipeDelimited`',
  },
  'request-parameter-explode-changed': {
    severity: BC,
    summary: 'an array or object parameter is serialised with another `explode`',
    action: 'Serialise the parameter the new way (`a=1&a=2` for exploded, `a=1,2` otherwise).',
    example: '`explode: true` → `explode: false`',
  },
  'request-parameter-renamed': {
    severity: 'breaking-source',
    summary: 'a path parameter has another name: the same URL, but typed clients name it',
    action: 'Use the new name in `params.path`; the URL is unchanged.',
    example: '`/v1/spaces/{spaceId}` → `/v1/spaces/{id}`',
  },
  'request-body-added': {
    severity: BI,
    summary: 'the operation now accepts an optional body',
    action: 'Implementations must accept the body and act on it.',
    example: 'optional `requestBody` added',
  },
  'request-body-added-required': {
    severity: BC,
    summary: 'the operation now requires a body',
    action: 'Send the body.',
    example: '`requestBody` with `required: true` added',
  },
  'request-body-removed': {
    severity: BC,
    summary: 'the operation no longer takes a body',
    action: 'Stop sending a body.',
    example: '`requestBody` removed',
  },
  'request-body-removed-unspecified': {
    severity: 'non-breaking',
    summary: 'an optional body that specified nothing (no schema, on GET, HEAD or DELETE, where a body has no defined meaning) is no longer declared',
    example: '`get: {requestBody: {content: {application/json: {}}}}` → no `requestBody`',
  },
  'request-body-became-required': {
    severity: BC,
    summary: 'the body must now be sent',
    action: 'Always send the body.',
    example: '`requestBody.required: false` → `true`',
  },
  'request-body-became-optional': {
    severity: BI,
    summary: 'the body may now be left out',
    action: 'Implementations must handle a request without a body.',
    example: '`requestBody.required: true` → `false`',
  },
  'request-media-type-added': {
    severity: BI,
    summary: 'the body is accepted in a new content type',
    action: 'Implementations must accept bodies of the new content type.',
    example: '`multipart/form-data` added beside `application/json`',
  },
  'request-media-type-removed': {
    severity: BC,
    summary: 'a content type of the body is no longer accepted',
    action: 'Send the body in one of the remaining content types.',
    example: '`application/x-www-form-urlencoded` removed',
  },
  'response-success-status-changed': {
    severity: BC,
    summary: 'the operation answers success with another status',
    action: 'Expect the new success status.',
    example: '`200` → `201`',
  },
  'response-status-removed': {
    severity: BI,
    summary: 'a declared status is no longer declared',
    action: 'Implementations must stop answering the status.',
    example: 'the `409` answer removed',
  },
  'response-status-added': {
    severity: 'warning',
    summary: 'a new error status is declared',
    action: 'Handle the new status where you switch over the statuses.',
    example: 'a `409` answer added',
  },
  'response-media-type-added': {
    severity: 'non-breaking',
    summary: 'the answer is also available in a new content type',
    example: '`text/markdown` added beside `application/json`',
  },
  'response-media-type-removed': {
    severity: BC,
    summary: 'the answer is no longer given in a content type',
    action: 'Ask for and read one of the remaining content types.',
    example: '`application/json` → `application/vnd.api+json`',
  },
  'response-header-added': {
    severity: 'non-breaking',
    summary: 'a new optional response header',
    example: 'optional `etag` header added',
  },
  'response-header-added-required': {
    severity: BI,
    summary: 'a new response header must always be sent',
    action: 'Implementations must send the header.',
    example: 'required `location` header added',
  },
  'response-header-removed': {
    severity: BC,
    summary: 'a response header is no longer sent',
    action: 'Stop reading the header.',
    example: '`location` header removed',
  },
  'response-header-became-optional': {
    severity: BC,
    summary: 'a response header that was always sent may now be absent',
    action: 'Check that the header is present before reading it.',
    example: '`location`: `required: true` → `false`',
  },
  'response-header-became-required': {
    severity: BI,
    summary: 'a response header must now always be sent',
    action: 'Implementations must always send the header.',
    example: '`etag`: `required: false` → `true`',
  },
} as const satisfies Record<string, { severity: Severity; summary: string; action?: string; example: string }>;

export type OperationRuleId = keyof typeof OPERATION_RULES;

export type RuleId =
  | OperationRuleId
  | `request-property-${KindsFor<'request'>}`
  | `request-parameter-${KindsFor<'request'>}`
  | `response-property-${KindsFor<'response'>}`
  | `response-header-${KindsFor<'response'>}`
  | `request-property-${ObjectKindsFor<'request'>}`
  | `response-property-${ObjectKindsFor<'response'>}`;

export interface Rule {
  id: RuleId;
  severity: Severity;
  summary: string;
  action?: string;
  example: string;
  /** For schema rules: the change they name, shared by their contexts. */
  kind?: SchemaKind;
  context?: SchemaContext;
}

function buildRules(): Map<RuleId, Rule> {
  const rules = new Map<RuleId, Rule>();
  for (const [id, rule] of Object.entries(OPERATION_RULES)) {
    rules.set(id as RuleId, { id: id as RuleId, ...rule });
  }
  for (const context of SCHEMA_CONTEXTS) {
    const direction = directionOf(context);
    for (const [kind, entry] of Object.entries(SCALAR_KINDS) as [ScalarKind, Kind][]) {
      const side = entry[direction];
      if (!side) continue;
      const id = `${context}-${kind}` as RuleId;
      rules.set(id, { id, ...side, example: entry.example, kind, context });
    }
  }
  for (const direction of ['request', 'response'] as const) {
    for (const [kind, entry] of Object.entries(OBJECT_KINDS) as [ObjectKind, Kind][]) {
      const side = entry[direction];
      if (!side) continue;
      const id = `${direction}-property-${kind}` as RuleId;
      rules.set(id, { id, ...side, example: entry.example, kind, context: `${direction}-property` });
    }
  }
  return rules;
}

/** Every rule, by id. */
export const RULES: ReadonlyMap<RuleId, Rule> = buildRules();

export function isObjectKind(kind: SchemaKind): kind is ObjectKind {
  return Object.hasOwn(OBJECT_KINDS, kind);
}

/** The rule a schema change is reported under: object changes are always `<direction>-property-…`. */
export function schemaRule(context: SchemaContext, kind: SchemaKind): RuleId | undefined {
  const id = (isObjectKind(kind) ? `${directionOf(context)}-property-${kind}` : `${context}-${kind}`) as RuleId;
  return RULES.has(id) ? id : undefined;
}

/** Rules of the document as a whole, outside `#/paths` and `#/components`: a finding of one has no operation or schema. */
export function isDocumentRule(id: string): boolean {
  return id.startsWith('schema-dialect-');
}

export function ruleOf(id: string): Rule | undefined {
  return RULES.get(id as RuleId);
}
