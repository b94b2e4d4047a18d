// The seed format (SEED_FILE, or an object given to the test harness): `SEED_SCHEMA`, the JSON Schema the server checks
// every seed against (seed-schema.ts), and `SeedFixture`, the type inferred from it, each field typed as the contract's
// field it becomes, so that the type and the server accept the same seeds. It imports only the contract's types
// (server/docs/seed-file.md).
import type { components, Readable } from '../../generated/schema.d.ts';

type Schemas = components['schemas'];
type Model<Name extends keyof Schemas> = Readable<Schemas[Name]>;

/** The contract's schema of `property` of `schema`, by reference. */
const field = <const Schema extends keyof Schemas & string, const Property extends keyof Model<Schema> & string>(schema: Schema, property: Property) => ({
  $ref: `contract#/components/schemas/${schema}/properties/${property}` as const,
});
/** The contract's schema `schema`, by reference. */
const model = <const Schema extends keyof Schemas & string>(schema: Schema) => ({ $ref: `contract#/components/schemas/${schema}` as const });
const id = model('ResourceId');
/** The id of another record of the file. */
const reference = { type: 'string', minLength: 1 } as const;
const nonEmpty = { minLength: 1 } as const;
const record = <const Properties extends Record<string, unknown>, const Required extends readonly (keyof Properties & string)[] = []>(
  properties: Properties,
  required: Required = [] as unknown as Required,
) => ({ type: 'object' as const, properties, required, additionalProperties: false as const });
const list = <const Items>(items: Items) => ({ type: 'array' as const, items });
const orNull = <const Schema>(schema: Schema) => ({ anyOf: [schema, { type: 'null' as const }] as const });

const page = record(
  {
    id,
    title: { allOf: [field('Page', 'title'), nonEmpty] as const },
    slug: field('Page', 'slug'),
    description: field('Page', 'description'),
    markdown: field('Page', 'markdown'),
    pages: list({ $ref: '#/$defs/page' } as const),
  },
  ['title'],
);

/** The seed file's schema: its records, each field by reference to the contract's schema of what it becomes. */
export const SEED_SCHEMA = {
  $id: 'seed',
  type: 'object',
  additionalProperties: false,
  $defs: { page },
  properties: {
    users: list(
      record(
        {
          id,
          displayName: { allOf: [field('User', 'displayName'), nonEmpty] as const },
          // null: none, as when left out.
          email: orNull(field('User', 'email')),
          photoURL: orNull(field('User', 'photoURL')),
          tokens: list({ type: 'string', minLength: 1 } as const),
        },
        ['displayName'],
      ),
    ),
    organizations: list(
      record(
        {
          id,
          title: field('Organization', 'title'),
          type: field('Organization', 'type'),
          emailDomains: field('Organization', 'emailDomains'),
          members: list(record({ user: reference, role: field('Member', 'role') }, ['user'])),
          teams: list(
            record(
              {
                id,
                title: field('Team', 'title'),
                members: list(record({ user: reference, role: model('TeamMemberRole') }, ['user'])),
                spaces: list(reference),
              },
              ['title'],
            ),
          ),
          collections: list(record({ id, title: field('Collection', 'title'), parent: reference }, ['title'])),
          spaces: list(
            record({ id, title: field('Space', 'title'), parent: reference, visibility: field('Space', 'visibility'), pages: list({ $ref: '#/$defs/page' } as const) }, [
              'title',
            ]),
          ),
        },
        ['title'],
      ),
    ),
  },
} as const;

type Defs = (typeof SEED_SCHEMA)['$defs'];

/**
 * The type of the values `schema` accepts, for the keywords SEED_SCHEMA uses: `$ref` (to the contract's schemas and
 * fields, and to `#/$defs/…`), `type` (object with `properties`, `required` and no other property; array with
 * `items`; string; null), `allOf`, `anyOf`; constraints on values (`minLength`) narrow no type.
 */
type Infer<Schema> = Schema extends { $ref: `contract#/components/schemas/${infer Name}/properties/${infer Property}` }
  ? Name extends keyof Schemas
    ? Property extends keyof Model<Name>
      ? Exclude<Model<Name>[Property], undefined>
      : never
    : never
  : Schema extends { $ref: `contract#/components/schemas/${infer Name}` }
    ? Name extends keyof Schemas
      ? Model<Name>
      : never
    : Schema extends { $ref: `#/$defs/${infer Name}` }
      ? Name extends keyof Defs
        ? Infer<Defs[Name]>
        : never
      : Schema extends { allOf: readonly [infer First, ...infer Rest] }
        ? Infer<First> & Infer<{ allOf: Rest }>
        : Schema extends { anyOf: readonly (infer Member)[] }
          ? Infer<Member>
          : Schema extends { type: 'object'; properties: infer Properties }
            ? Flat<
                { -readonly [Key in keyof Properties as Key extends RequiredOf<Schema> ? Key : never]: Infer<Properties[Key]> } & {
                  -readonly [Key in keyof Properties as Key extends RequiredOf<Schema> ? never : Key]?: Infer<Properties[Key]>;
                }
              >
            : Schema extends { type: 'array'; items: infer Items }
              ? Infer<Items>[]
              : Schema extends { type: 'string' }
                ? string
                : Schema extends { type: 'null' }
                  ? null
                  : unknown;

type RequiredOf<Schema> = Schema extends { required: readonly (infer Name)[] } ? Name : never;

/** One object type rather than an intersection of two (what an editor shows). */
type Flat<T> = { [Key in keyof T]: T[Key] };

/** A page of a seed's space (`pages` of a space or of a page). */
export type SeedPage = Infer<Defs['page']>;

/** A seed: what `SEED_SCHEMA` accepts. */
export type SeedFixture = Infer<typeof SEED_SCHEMA>;
