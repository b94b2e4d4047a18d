// How the breaking-change comparison reads schemas, each on a tiny pair of documents built here: a $ref and what it
// names, allOf members (read apart and intersected on every keyword), anyOf/oneOf alternatives, the spellings of
// null, maps, arrays, recursion, a component shared by operations, and the direction a field travels in; the
// rewrites that change nothing; renames, and where a change is reported (the component, or where clients reach it).
import { describe, expect, test } from 'vitest';
import { RULES, compareDocuments } from '../../breaking/index.ts';
import { doc, json, noContent, ok, pet, ref, rules, type Doc, type Schema } from '../support/breaking-documents.ts';

// ---- how schemas are read ------------------------------------------------------------------------------------

/** A request (POST /things, body `request`) and a response (GET /things/{id}, answer `response`). */
function api(request: unknown, response: unknown, schemas: Record<string, unknown>): Doc {
  return doc(
    {
      '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(request) }, responses: noContent } },
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: ok(response),
        },
      },
    },
    schemas,
  );
}

describe('reading schemas', () => {
  test('a schema inlined and the same schema behind a $ref compare equal; a change behind a $ref is found in the component', () => {
    const name = { type: 'string', maxLength: 50 };
    const inline = api({ type: 'object', properties: { name } }, ref('Thing'), { Thing: { type: 'object', properties: { name } } });
    const referenced = api(ref('ThingRequest'), ref('Thing'), {
      ThingRequest: { type: 'object', properties: { name: ref('Name') } },
      Thing: { type: 'object', properties: { name: ref('Name') } },
      Name: name,
    });
    expect(compareDocuments(inline, referenced)).toEqual([]);

    const shorter = structuredClone(referenced);
    ((shorter.components as Doc).schemas as Record<string, Schema>).Name!.maxLength = 20;
    const findings = compareDocuments(referenced, shorter);
    expect(rules(findings)).toEqual(['request-property-max-length-decreased', 'response-property-max-length-decreased']);
    for (const finding of findings) {
      expect(finding.path).toBe('#/components/schemas/Name');
      expect(finding.schema).toBe('Name');
    }
    expect(findings[0]!.fields).toEqual(['ThingRequest.name']);
    expect(findings[1]!.fields).toEqual(['Thing.name']);
  });

  test("the emitter's property wrapper `allOf: [$ref]` with a description equals a bare $ref", () => {
    const schemas = { Kind: { type: 'string', enum: ['a', 'b'] } };
    const bare = api({ type: 'object', properties: { kind: ref('Kind') } }, ref('Kind'), schemas);
    const wrapped = api({ type: 'object', properties: { kind: { allOf: [ref('Kind')], description: 'The kind.' } } }, { allOf: [ref('Kind')] }, schemas);
    expect(compareDocuments(bare, wrapped)).toEqual([]);
  });

  test('allOf is compared by its members: a property moved between members is no change; a change in a member is found there', () => {
    const flat = api(ref('Thing'), ref('Thing'), {
      Thing: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string', maxLength: 50 } } },
    });
    const composed = api(ref('Thing'), ref('Thing'), {
      Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      Thing: { allOf: [ref('Base')], type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 50 } } },
    });
    expect(rules(compareDocuments(flat, composed))).toEqual([]);

    const changed = structuredClone(composed);
    const schemas = (changed.components as Doc).schemas as Record<string, Schema>;
    (schemas.Base!.properties as Record<string, Schema>).id!.format = 'uuid';
    const findings = compareDocuments(composed, changed);
    expect(rules(findings)).toEqual(['request-property-format-added', 'response-property-format-added']);
    expect(findings[0]!.path).toBe('#/components/schemas/Base/properties/id');
    expect(findings[0]!.schema).toBe('Base');
    expect(findings[0]!.fields).toEqual(['Thing.id']);
  });

  test('oneOf/anyOf are compared member by member, matched by their $ref whatever the order', () => {
    const schemas = { Cat: pet('cat'), Dog: pet('dog') };
    const before = api({ oneOf: [ref('Cat'), ref('Dog')] }, { anyOf: [ref('Cat'), ref('Dog')] }, schemas);
    const reordered = api({ oneOf: [ref('Dog'), ref('Cat')] }, { anyOf: [ref('Dog'), ref('Cat')] }, schemas);
    expect(compareDocuments(before, reordered)).toEqual([]);

    const changed = structuredClone(reordered);
    const dog = ((changed.components as Doc).schemas as Record<string, Schema>).Dog!;
    dog.properties = { ...(dog.properties as object), name: { type: 'string' } };
    dog.required = [...(dog.required as string[]), 'name'];
    const findings = compareDocuments(before, changed);
    expect(rules(findings)).toEqual(['request-property-added-required', 'response-property-added-required']);
    expect(findings.every((finding) => finding.path === '#/components/schemas/Dog/properties/name')).toBe(true);
  });

  test('a new member of a discriminated union breaks clients in a response and implementations in a request', () => {
    const union = (...names: string[]) => ({
      oneOf: names.map(ref),
      discriminator: { propertyName: 'kind', mapping: Object.fromEntries(names.map((name) => [name.toLowerCase(), `#/components/schemas/${name}`])) },
    });
    const schemas = { Cat: pet('cat'), Dog: pet('dog'), Bird: pet('bird') };
    const findings = compareDocuments(api(union('Cat', 'Dog'), union('Cat', 'Dog'), schemas), api(union('Cat', 'Dog', 'Bird'), union('Cat', 'Dog', 'Bird'), schemas));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.detail])).toEqual([
      ['response-property-discriminator-tag-added', 'breaking-client', 'discriminator `kind`: new tag "bird" (`Bird`)'],
      ['request-property-discriminator-tag-added', 'breaking-implementation', 'discriminator `kind`: new tag "bird" (`Bird`)'],
    ]);
  });

  test('a plain schema that becomes a union is a new alternative, the old one matched by type', () => {
    const before = api({ type: 'object', properties: { spaces: { type: 'array', items: { type: 'string' } } } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { spaces: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string', enum: ['new'] }] } } },
      { anyOf: [{ type: 'string' }, ref('Site')] },
      { Site: { type: 'object', properties: { id: { type: 'string' } } } },
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.message])).toEqual([
      ['response-property-variant-added', '`response body`: new alternative `Site`'],
      ['request-property-variant-added', '`spaces`: new alternative string "new"'],
    ]);
  });
});

describe('reading schemas: nullability, maps, arrays, recursion, shared components, direction', () => {
  test('nullable written as a type list, as anyOf with null, and as the emitter writes it (anyOf + siblings) compare equal', () => {
    const spellings = [
      { type: ['string', 'null'], maxLength: 10 },
      { anyOf: [{ type: 'string' }, { type: 'null' }], maxLength: 10 },
      { anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] },
      { oneOf: [{ type: 'null' }, { type: 'string', maxLength: 10 }] },
    ];
    const place = (title: unknown) => api({ type: 'object', properties: { title } }, { type: 'object', properties: { title } }, {});
    for (const spelling of spellings.slice(1)) expect(compareDocuments(place(spellings[0]), place(spelling))).toEqual([]);

    const role = { Role: { type: 'string', enum: ['admin', 'reader'] } };
    const plain = api({ type: 'object', properties: { role: ref('Role') } }, { type: 'object', properties: { role: ref('Role') } }, role);
    const nullable = api(
      { type: 'object', properties: { role: { anyOf: [ref('Role'), { type: 'null' }], description: 'Or null.' } } },
      { type: 'object', properties: { role: { anyOf: [ref('Role'), { type: 'null' }] } } },
      role,
    );
    expect(compareDocuments(plain, nullable).map((finding) => [finding.rule, finding.severity, finding.path])).toEqual([
      ['response-property-became-nullable', 'breaking-client', '#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/role'],
      ['request-property-became-nullable', 'breaking-implementation', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/role'],
    ]);
  });

  test("maps (unevaluatedProperties / additionalProperties) compare their values' schemas", () => {
    const map = (value: unknown) => ({ type: 'object', properties: { labels: { type: 'object', unevaluatedProperties: value } } });
    const findings = compareDocuments(
      api(map({ type: 'string', maxLength: 100 }), map({ type: 'string', enum: ['a'] }), {}),
      api(map({ type: 'string', maxLength: 50 }), map({ type: 'string', enum: ['a', 'b'] }), {}),
    );
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([
      ['request-property-max-length-decreased', '`labels.*`: maxLength 100 → 50'],
      ['response-property-enum-value-added', '`labels.*`: new value "b"'],
    ]);
    expect(findings[0]!.path).toBe('#/paths/~1things/post/requestBody/content/application~1json/schema/properties/labels/unevaluatedProperties');
    expect(findings[1]!.severity).toBe('warning');
  });

  test("arrays compare their items' schemas", () => {
    const tags = (items: unknown) => ({ type: 'object', properties: { tags: { type: 'array', items } } });
    const findings = compareDocuments(api(tags({ type: 'string' }), tags(ref('Tag')), { Tag: { type: 'string' } }), api(tags({ type: 'integer' }), tags(ref('Tag')), { Tag: { type: 'string', format: 'uuid' } }));
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([
      ['request-property-type-changed', '`tags[]`: type string → integer'],
      ['response-property-format-added', '`tags[]`: format none → uuid'],
    ]);
  });

  test('recursive schemas are walked once, and a change deep inside is found once', () => {
    const node = (nameLength: number) => ({
      Node: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', maxLength: nameLength }, children: { type: 'array', items: ref('Node') }, parent: ref('Tree') },
      },
      Tree: { type: 'object', properties: { root: ref('Node'), nodes: { type: 'object', unevaluatedProperties: ref('Node') } } },
    });
    const before = api(ref('Tree'), ref('Node'), node(100));
    expect(compareDocuments(before, structuredClone(before))).toEqual([]);
    const findings = compareDocuments(before, api(ref('Tree'), ref('Node'), node(50)));
    expect(findings.map((finding) => [finding.rule, finding.path, finding.fields])).toEqual([
      ['request-property-max-length-decreased', '#/components/schemas/Node/properties/name', ['Node.name']],
      ['response-property-max-length-decreased', '#/components/schemas/Node/properties/name', ['Node.name']],
    ]);
  });

  test('a change in a shared component is one finding naming every operation it affects', () => {
    const schemas = { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } };
    const list = { type: 'object', properties: { items: { type: 'array', items: ref('Thing') } } };
    const paths = {
      '/things': { get: { operationId: 'listThings', responses: ok(list) } },
      '/things/{id}': { get: { operationId: 'getThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok(ref('Thing')) } },
    };
    const findings = compareDocuments(doc(paths, schemas), doc(paths, { Thing: { type: 'object', properties: { id: { type: 'string' } } } }));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: 'response-property-became-optional', schema: 'Thing', fields: ['Thing.id'] });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['getThing', 'listThings']);
  });

  test('read-only fields travel only in responses, write-only fields only in requests', () => {
    const thingWith = (extra: Record<string, unknown>) => ({ Thing: { type: 'object', properties: { name: { type: 'string' }, ...extra } } });
    const base = api(ref('Thing'), ref('Thing'), thingWith({}));
    expect(rules(compareDocuments(base, api(ref('Thing'), ref('Thing'), thingWith({ createdAt: { type: 'string', readOnly: true } }))))).toEqual([
      'response-property-added',
    ]);
    expect(rules(compareDocuments(base, api(ref('Thing'), ref('Thing'), thingWith({ secret: { type: 'string', writeOnly: true } }))))).toEqual([
      'request-property-added',
    ]);
  });
});

// ---- composed schemas, renames, where changes are reported ---------------------------------------------------

describe('allOf members intersected on every keyword, as a client and an implementation see them', () => {
  const modes = { EditMode: { type: 'string', enum: ['live', 'locked'] } };
  const withMode = (editMode: unknown) =>
    api(
      { type: 'object', properties: { editMode } },
      { type: 'object', required: ['editMode'], properties: { editMode } },
      modes,
    );

  test('a second allOf member that restricts an enum removes the values it leaves out', () => {
    const findings = compareDocuments(
      withMode({ allOf: [ref('EditMode')], description: 'How it is edited.' }),
      withMode({ allOf: [ref('EditMode'), { enum: ['live'] }], description: 'How it is edited.' }),
    );
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.message])).toEqual([
      ['request-property-enum-value-removed', 'breaking-client', '`editMode`: value "locked" removed'],
      ['response-property-enum-value-removed', 'breaking-implementation', '`editMode`: value "locked" removed'],
    ]);
    expect(findings[0]!.path).toBe('#/paths/~1things/post/requestBody/content/application~1json/schema/properties/editMode/allOf/1');
  });

  test('a second member that tightens a property’s maxLength tightens it', () => {
    const schemas = { Base: { type: 'object', properties: { title: { type: 'string', maxLength: 255 } } } };
    const findings = compareDocuments(
      api(ref('Thing'), ref('Thing'), { ...schemas, Thing: { allOf: [ref('Base')] } }),
      api(ref('Thing'), ref('Thing'), { ...schemas, Thing: { allOf: [ref('Base'), { properties: { title: { maxLength: 50 } } }] } }),
    );
    expect(findings.map((finding) => [finding.rule, finding.path, finding.schema, finding.message])).toEqual([
      ['request-property-max-length-decreased', '#/components/schemas/Thing/allOf/1/properties/title', 'Thing', '`Thing.title`: maxLength 255 → 50'],
      ['response-property-max-length-decreased', '#/components/schemas/Thing/allOf/1/properties/title', 'Thing', '`Thing.title`: maxLength 255 → 50'],
    ]);
  });

  test('formats, patterns, other keywords and types of every member hold together', () => {
    const base = { type: 'string', format: 'uri', pattern: '^h' };
    const before = api({ type: 'object', properties: { link: base } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { link: { allOf: [base, { format: 'uri', pattern: '^https:', multipleOf: 2, type: ['string', 'integer'] }] } } },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.detail])).toEqual([
      ['request-property-constraint-tightened', 'multipleOf none → 2'],
      ['request-property-pattern-added', 'pattern "^h" → "^h" and "^https:"'],
    ]);
  });

  test('members whose enums do not meet accept nothing but what they share; null only when every member allows it', () => {
    const before = api({ type: 'object', properties: { kind: { type: ['string', 'null'], enum: ['a', 'b', null] } } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { kind: { allOf: [{ type: ['string', 'null'], enum: ['a', 'b', null] }, { enum: ['b', 'c'] }] } } },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.detail])).toEqual([
      ['request-property-became-not-nullable', 'no longer nullable'],
      ['request-property-enum-value-removed', 'value "a" removed'],
    ]);
  });

  test('additionalProperties: false in one member refuses the properties another member declares (what a validator does)', () => {
    const thing = (second: Schema) => api(ref('Thing'), { type: 'string' }, { Thing: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, second] } });
    const findings = compareDocuments(
      thing({ type: 'object', properties: { b: { type: 'string' } } }),
      thing({ type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false }),
    );
    expect(findings.map((finding) => [finding.rule, finding.path])).toEqual([
      ['request-property-removed', '#/components/schemas/Thing/allOf/0/properties/a'],
      ['request-property-sealed', '#/components/schemas/Thing/allOf/1'],
    ]);
    expect(findings[0]!.fields).toEqual(['Thing.a']);
  });

  test('two unions in allOf are one union of the alternatives that can meet', () => {
    const plain = api({ type: 'object', properties: { v: { type: 'string', maxLength: 5 } } }, { type: 'string' }, {});
    const unions = api(
      {
        type: 'object',
        properties: { v: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'boolean' }] }] } },
      },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(plain, unions)).toEqual([]);
  });
});

describe('equivalent rewrites give no difference', () => {
  const name = { type: 'string', maxLength: 50 };
  const id = { type: 'string', readOnly: true };
  const flat = api(ref('Thing'), ref('Thing'), {
    Thing: { type: 'object', required: ['id', 'name'], properties: { id, name }, unevaluatedProperties: { not: {} } },
  });

  test.each([
    [
      'allOf members split and merged, a $ref extracted',
      {
        Thing: {
          allOf: [ref('Ids'), { type: 'object', required: ['name'], properties: { name: { allOf: [{ maxLength: 80 }, { type: 'string', maxLength: 50 }] } } }],
          unevaluatedProperties: false,
        },
        Ids: { type: 'object', required: ['id'], properties: { id } },
      },
    ],
    [
      'unevaluatedProperties written as additionalProperties where nothing is composed',
      { Thing: { type: 'object', required: ['id', 'name'], properties: { id, name }, additionalProperties: false } },
    ],
    [
      'properties declared twice, once in each member',
      { Thing: { allOf: [{ type: 'object', properties: { name } }, { type: 'object', required: ['id', 'name'], properties: { id, name } }], unevaluatedProperties: { not: {} } } },
    ],
  ])('%s', (_, schemas) => {
    expect(compareDocuments(flat, api(ref('Thing'), ref('Thing'), schemas))).toEqual([]);
  });

  test('a $ref inlined, and parameters moved between the operation and its path item', () => {
    const parameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
    const before = doc(
      { '/things/{id}': { get: { operationId: 'getThing', parameters: [parameter, { name: 'q', in: 'query', schema: ref('Query') }], responses: ok(ref('Thing')) } } },
      { Thing: { type: 'object', properties: { name: { type: 'string' } } }, Query: { type: 'string', enum: ['a'] } },
    );
    const after = doc(
      {
        '/things/{id}': {
          parameters: [{ $ref: '#/components/parameters/Id' }],
          get: { operationId: 'getThing', parameters: [{ name: 'q', in: 'query', schema: { const: 'a' } }], responses: ok({ type: 'object', properties: { name: { type: 'string' } } }) },
        },
      },
      {},
      { components: { schemas: {}, parameters: { Id: parameter } } },
    );
    expect(compareDocuments(before, after).filter((finding) => finding.rule !== 'schema-removed')).toEqual([]);
  });

  test('an OpenAPI 3.0 document and its 3.1 spelling', () => {
    const v31 = api(
      { type: 'object', properties: { note: { type: ['string', 'null'] }, size: { type: 'integer', exclusiveMaximum: 10 } } },
      { type: 'object', properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      {},
    );
    const v30 = {
      ...api(
        { type: 'object', properties: { note: { type: 'string', nullable: true }, size: { type: 'integer', maximum: 10, exclusiveMaximum: true } } },
        { type: 'object', properties: { note: { type: 'string', nullable: true } } },
        {},
      ),
      openapi: '3.0.3',
    };
    expect(compareDocuments(v31, v30)).toEqual([]);
    expect(compareDocuments(v30, v31)).toEqual([]);
  });

  test('not equivalent: additionalProperties beside allOf refuses what the members declare; unevaluatedProperties does not', () => {
    const base = { Base: { type: 'object', properties: { id: { type: 'string' } } } };
    const with_ = (keyword: string) => api(ref('Thing'), { type: 'string' }, { ...base, Thing: { allOf: [ref('Base')], properties: { name: { type: 'string' } }, [keyword]: false } });
    expect(compareDocuments(with_('unevaluatedProperties'), with_('additionalProperties')).map((finding) => [finding.rule, finding.fields])).toEqual([
      ['request-property-removed', ['Thing.id']],
    ]);
  });
});

describe('renames and where changes are reported', () => {
  const urls = { type: 'object', required: ['app'], properties: { app: { type: 'string', format: 'uri' } } };
  const space = (name: string) => ({ type: 'object', properties: { title: { type: 'string' }, urls: { allOf: [ref(name)], readOnly: true } } });
  const spaces = (name: string) =>
    doc(
      {
        '/spaces': { get: { operationId: 'listSpaces', responses: ok(ref('SpaceList')) } },
        '/spaces/{id}': { get: { operationId: 'getSpace', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok(ref('Space')) } },
        '/other': { get: { operationId: 'getOther', responses: ok({ type: 'string' }) } },
      },
      { Space: space(name), SpaceList: { type: 'object', properties: { items: { type: 'array', items: ref('Space') } } }, [name]: urls },
    );

  test('a component renamed with the same shape is a rename naming both and every operation whose types name it', () => {
    const findings = compareDocuments(spaces('SpaceUrls'), spaces('SpaceLinks'));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'schema-renamed',
      severity: 'breaking-source',
      path: '#/components/schemas/SpaceLinks',
      schema: 'SpaceLinks',
      renamed: { from: 'SpaceUrls', to: 'SpaceLinks' },
      detail: 'schema `SpaceUrls` renamed `SpaceLinks` (the same shape); the generated types of 2 operations name it',
    });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['getSpace', 'listSpaces']);
  });

  test('a component removed while one of another shape is added is a removal, with what changed where it is used', () => {
    const after = spaces('SpaceLinks');
    ((after.components as Doc).schemas as Record<string, Schema>).SpaceLinks = { type: 'object', properties: { app: { type: 'string', format: 'uri' } } };
    const findings = compareDocuments(spaces('SpaceUrls'), after);
    expect(findings.map((finding) => [finding.rule, finding.path, finding.message])).toEqual([
      ['response-property-became-optional', '#/components/schemas/Space/properties/urls', '`Space.urls.app`: now optional'],
      ['schema-removed', '#/components/schemas/SpaceUrls', 'schema `SpaceUrls` removed; the generated types of 2 operations name it'],
    ]);
  });

  test('a field dropped from an inline copy that replaced a $ref is reported where clients reach it, not in the unchanged component', () => {
    const after = spaces('SpaceUrls');
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    const inline = structuredClone(schemas.Space!) as { properties: Record<string, unknown> };
    delete inline.properties.title;
    schemas.SpaceList = { type: 'object', properties: { items: { type: 'array', items: inline } } };
    const findings = compareDocuments(spaces('SpaceUrls'), after);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'response-property-removed',
      path: '#/components/schemas/SpaceList/properties/items/items',
      document: 'revision',
      schema: 'SpaceList',
      fields: ['SpaceList.items[].title'],
    });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['listSpaces']);
  });

  test('a reference switched to another component is reported where it refers, not in the component it now names', () => {
    const modes = (mode: string) =>
      api({ type: 'object', properties: { mode: { allOf: [ref(mode)], description: 'The mode.' } } }, { type: 'string' }, {
        EditMode: { type: 'string', enum: ['live', 'locked'] },
        Visibility: { type: 'string', enum: ['live', 'private'] },
      });
    const findings = compareDocuments(modes('EditMode'), modes('Visibility'));
    expect(findings.map((finding) => [finding.rule, finding.path, finding.schema])).toEqual([
      ['request-property-enum-value-removed', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/mode', undefined],
      ['request-property-enum-value-added', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/mode', undefined],
    ]);
  });

  test('a change in the component itself stays the component’s, named after it', () => {
    const after = spaces('SpaceUrls');
    (((after.components as Doc).schemas as Record<string, Schema>).Space!.properties as Record<string, Schema>).title = { type: 'string', maxLength: 10 };
    const [finding, ...rest] = compareDocuments(spaces('SpaceUrls'), after);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ path: '#/components/schemas/Space/properties/title', schema: 'Space', fields: ['Space.title'] });
    expect(finding!.operations.map((operation) => operation.operationId)).toEqual(['getSpace', 'listSpaces']);
  });

  test('a request field that became readOnly is named so, not “removed”', () => {
    const request = (title: Schema) => api({ type: 'object', properties: { title, note: { type: 'string' } } }, { type: 'string' }, {});
    const findings = compareDocuments(request({ type: 'string' }), request({ type: 'string', readOnly: true }));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.message])).toEqual([
      ['request-property-became-read-only', 'breaking-client', '`title`: now read-only: set by the server, no longer sent'],
    ]);
  });

  test('a renamed operation id and a renamed path parameter are renames: breaking for typed clients’ source', () => {
    for (const rule of ['operation-id-changed', 'request-parameter-renamed', 'schema-renamed', 'schema-removed'] as const) {
      expect(RULES.get(rule)!.severity).toBe('breaking-source');
    }
  });
});
