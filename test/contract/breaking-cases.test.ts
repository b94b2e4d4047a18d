// The gate's judgement of discriminated unions, security schemes and numeric bounds, on the real contract: each
// case takes the schemas and operations of generated/openapi.yaml and changes them the way a pull request would
// (a tag renamed, a scheme renamed, a bound respelled), then checks the findings, their rules, severities and
// places. What the comparison makes of the same cases on tiny documents is in breaking-rules.test.ts.
import { describe, expect, test } from 'vitest';
import { compareDocuments, type Finding } from '../../breaking/index.ts';
import { listReleases, readDocument } from '../../breaking/files.ts';
import { openapiPath } from '../support/repo.ts';

type Json = Record<string, any>;

const contract = readDocument(openapiPath) as Json;
const copy = (): Json => structuredClone(contract);
const schemas = (document: Json): Json => document.components.schemas;
const summary = (findings: Finding[]) => findings.map((finding) => [finding.rule, finding.severity, finding.path]);
const compare = (revision: Json, base: Json = contract) => compareDocuments(base, revision);

const STRUCTURE = '#/components/schemas/PublishedSiteStructure';
const SITE_SPACES = '#/components/schemas/PublishedSiteSpacesStructure';
/** The tag of the contract's tagged union (PublishedSiteStructure: sections or site spaces, told apart by `type`). */
const tagOf = (document: Json, member: 'PublishedSiteSpacesStructure' | 'PublishedSectionsStructure') => schemas(document)[member].properties.type;

/** The contract with its tagged union also sent: `UpdateSiteRequest.structure`, a request field of the same union. */
function sentToo(document: Json): Json {
  schemas(document).UpdateSiteRequest.properties.structure = { $ref: STRUCTURE };
  return document;
}

describe('discriminated unions: the tags are the member set', () => {
  test('the contract’s tagged union is what TypeSpec writes: members that require `type`, each with its own values', () => {
    expect(schemas(contract).PublishedSiteStructure.anyOf).toEqual([
      { $ref: '#/components/schemas/PublishedSectionsStructure' },
      { $ref: SITE_SPACES },
    ]);
    expect(tagOf(contract, 'PublishedSectionsStructure').enum).toEqual(['sections']);
    expect(tagOf(contract, 'PublishedSiteSpacesStructure').enum).toEqual(['siteSpaces']);
  });

  test('a tag renamed in an answer (siteSpaces → site-spaces) is one break for clients, not an enum value removed and added', () => {
    const revision = copy();
    tagOf(revision, 'PublishedSiteSpacesStructure').enum = ['site-spaces'];
    const findings = compare(revision);
    expect(summary(findings)).toEqual([['response-property-discriminator-tag-renamed', 'breaking-client', `${SITE_SPACES}/properties/type`]]);
    expect(findings[0]!.message).toBe('`PublishedContentSite.structure`: discriminator `type`: tag "siteSpaces" renamed "site-spaces" (`PublishedSiteSpacesStructure`)');
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['getPublishedSite']);
  });

  test('a tag value added in an answer breaks clients (their dispatch has no case for it); in a request, implementations', () => {
    const base = sentToo(copy());
    const revision = sentToo(copy());
    tagOf(revision, 'PublishedSiteSpacesStructure').enum = ['siteSpaces', 'flat'];
    expect(summary(compare(revision, base))).toEqual([
      ['response-property-discriminator-tag-added', 'breaking-client', `${SITE_SPACES}/properties/type`],
      ['request-property-discriminator-tag-added', 'breaking-implementation', `${SITE_SPACES}/properties/type`],
    ]);
  });

  test('a member removed is its tags removed: breaking for clients in requests, for implementations in answers (clients receive less)', () => {
    const withThird = (document: Json) => {
      schemas(document).PublishedFlatStructure = structuredClone(schemas(document).PublishedSiteSpacesStructure);
      schemas(document).PublishedFlatStructure.properties.type.enum = ['flat'];
      schemas(document).PublishedSiteStructure.anyOf.push({ $ref: '#/components/schemas/PublishedFlatStructure' });
      return sentToo(document);
    };
    const base = withThird(copy());
    const revision = withThird(copy());
    schemas(revision).PublishedSiteStructure.anyOf.pop();
    const findings = compare(revision, base);
    expect(summary(findings)).toEqual([
      ['request-property-discriminator-tag-removed', 'breaking-client', `${STRUCTURE}/anyOf`],
      ['response-property-discriminator-tag-removed', 'breaking-implementation', `${STRUCTURE}/anyOf`],
    ]);
    expect(findings[0]!.detail).toBe('discriminator `type`: tag "flat" (`PublishedFlatStructure`) removed');
  });

  test('the implicit mapping written out with the same tag → member pairs is no change; a mapping that changes a pair is', () => {
    const explicit = copy();
    schemas(explicit).PublishedSiteStructure.discriminator = {
      propertyName: 'type',
      mapping: { sections: '#/components/schemas/PublishedSectionsStructure', siteSpaces: SITE_SPACES },
    };
    expect(compare(explicit)).toEqual([]);
    expect(compare(contract, explicit)).toEqual([]);

    // A mapping entry whose member refuses the tag selects nothing (a validator refuses the value): no change.
    const void_ = structuredClone(explicit);
    schemas(void_).PublishedSiteStructure.discriminator.mapping.siteSpaces = '#/components/schemas/PublishedSectionsStructure';
    expect(compare(void_, explicit)).toEqual([]);

    // Both members accept `legacy`; the mapping says which one it selects.
    const shared = (target: string) => {
      const document = structuredClone(explicit);
      for (const member of ['PublishedSectionsStructure', 'PublishedSiteSpacesStructure'] as const) tagOf(document, member).enum.push('legacy');
      schemas(document).PublishedSiteStructure.discriminator.mapping.legacy = `#/components/schemas/${target}`;
      return document;
    };
    const moved = compare(shared('PublishedSiteSpacesStructure'), shared('PublishedSectionsStructure'));
    expect(summary(moved)).toEqual([['response-property-discriminator-mapping-changed', 'breaking-client', `${STRUCTURE}/discriminator/mapping`]]);
    expect(moved[0]!.detail).toBe('discriminator `type`: tag "legacy" now selects `PublishedSiteSpacesStructure` (was `PublishedSectionsStructure`)');
  });

  test('a tag written as const, the members reordered, and the union as oneOf are the same union', () => {
    const revision = copy();
    const tag = tagOf(revision, 'PublishedSiteSpacesStructure');
    tag.const = 'siteSpaces';
    delete tag.enum;
    schemas(revision).PublishedSiteStructure.oneOf = [...schemas(revision).PublishedSiteStructure.anyOf].reverse();
    delete schemas(revision).PublishedSiteStructure.anyOf;
    expect(compare(revision)).toEqual([]);
  });

  test('a change inside a member other than its tag is still found in the member', () => {
    const revision = copy();
    schemas(revision).PublishedSiteSpacesStructure.properties.structure.maxItems = 100;
    expect(summary(compare(revision))).toEqual([
      ['response-property-max-items-decreased', 'breaking-implementation', `${SITE_SPACES}/properties/structure`],
    ]);
  });
});

describe('security schemes: compared by what they are', () => {
  const renamed = (document: Json, to: string) => {
    const schemes = document.components.securitySchemes;
    schemes[to] = schemes.BearerAuth;
    delete schemes.BearerAuth;
    document.security = [{ [to]: [] }];
    return document;
  };

  test('BearerAuth renamed HttpBearer with the same definition is information, once, naming every operation: no wire break', () => {
    const findings = compare(renamed(copy(), 'HttpBearer'));
    expect(summary(findings)).toEqual([['security-scheme-renamed', 'non-breaking', '#/components/securitySchemes/HttpBearer']]);
    expect(findings[0]!.operations).toHaveLength(Object.values(contract.paths as Json).flatMap((item) => Object.keys(item)).length);
    expect(findings[0]!.renamed).toEqual({ from: 'BearerAuth', to: 'HttpBearer' });
    expect(findings[0]!.action).toMatch(/keyed by the scheme’s name/);
  });

  test('the same definition written otherwise is no change: the scheme’s case, bearerFormat, a description', () => {
    const revision = copy();
    revision.components.securitySchemes.BearerAuth = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token.' };
    expect(compare(revision)).toEqual([]);
  });

  test('another definition under the same name is one security-scheme-changed, not a change of every operation', () => {
    const revision = copy();
    revision.components.securitySchemes.BearerAuth = { type: 'apiKey', in: 'header', name: 'X-Api-Key' };
    const findings = compare(revision);
    expect(summary(findings)).toEqual([['security-scheme-changed', 'breaking-client', '#/components/securitySchemes/BearerAuth']]);
    expect(findings[0]!.detail).toBe('security scheme `BearerAuth`: in none → header; name none → x-api-key; scheme bearer → none; type http → apiKey');
  });

  test('renamed and redefined at once: the old way of authenticating is refused, the new one accepted', () => {
    const revision = renamed(copy(), 'ApiKey');
    revision.components.securitySchemes.ApiKey = { type: 'apiKey', in: 'query', name: 'key' };
    expect(summary(compare(revision))).toEqual([
      ['operation-security-changed', 'breaking-client', '#/security'],
      ['operation-security-alternative-added', 'breaking-implementation', '#/security'],
    ]);
  });

  test('OAuth flows: a scope added changes nothing; a scope or a flow’s address taken away is a change', () => {
    const flows = (scopes: Json, tokenUrl = 'https://auth.example.com/token') => {
      const document = copy();
      document.components.securitySchemes.BearerAuth = { type: 'oauth2', flows: { clientCredentials: { tokenUrl, scopes } } };
      return document;
    };
    const base = flows({ read: 'Read.' });
    expect(compare(flows({ read: 'Read everything.', write: 'Write.' }), base)).toEqual([]);
    expect(summary(compare(base, flows({ read: 'Read.', write: 'Write.' })))).toEqual([
      ['security-scheme-changed', 'breaking-client', '#/components/securitySchemes/BearerAuth'],
    ]);
    expect(summary(compare(flows({ read: 'Read.' }, 'https://auth.example.com/v2/token'), base))).toEqual([
      ['security-scheme-changed', 'breaking-client', '#/components/securitySchemes/BearerAuth'],
    ]);
  });
});

describe('numeric bounds: compared by the values they accept', () => {
  // listTeams's `limit` (each operation's parameters are its own: the contract shares none as components).
  const teams = (document: Json) => document.paths['/v1/orgs/{organizationId}/teams'].get;
  const limitIndex = teams(contract).parameters.findIndex((parameter: Json) => parameter.name === 'limit');
  const LIMIT = `#/paths/~1v1~1orgs~1{organizationId}~1teams/get/parameters/${limitIndex}/schema`;
  const limit = (document: Json) => teams(document).parameters[limitIndex].schema;
  const count = (document: Json) => schemas(document).CommentList.properties.count;

  test('the contract’s integer bounds: limit is 1 to 1000, a count at least 0', () => {
    expect(limit(contract)).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(count(contract)).toMatchObject({ type: 'integer', minimum: 0 });
  });

  test('on integers, exclusiveMinimum n is minimum n+1 and exclusiveMaximum n is maximum n-1, in 3.1 and in 3.0', () => {
    const respelled = copy();
    const schema = limit(respelled);
    delete schema.minimum;
    delete schema.maximum;
    Object.assign(schema, { exclusiveMinimum: 0, exclusiveMaximum: 1001 });
    count(respelled).minimum = -0.5;
    expect(compare(respelled)).toEqual([]);
    expect(compare(contract, respelled)).toEqual([]);

    // OpenAPI 3.0 writes the exclusive bound as a boolean beside the number.
    const legacy = (document: Json) => ({ ...document, openapi: '3.0.3' });
    const boolean = legacy(copy());
    Object.assign(limit(boolean), { minimum: 0, exclusiveMinimum: true, maximum: 1001, exclusiveMaximum: true });
    expect(compare(boolean, legacy(copy()))).toEqual([]);
  });

  test('a bound that really moves is still found: minimum 1 → exclusiveMinimum 1 on an integer is minimum 2', () => {
    const revision = copy();
    delete limit(revision).minimum;
    limit(revision).exclusiveMinimum = 1;
    const findings = compare(revision);
    expect(summary(findings)).toEqual([['request-parameter-min-increased', 'breaking-client', LIMIT]]);
    expect(findings[0]!.detail).toBe('minimum 1 → exclusiveMinimum 1');
  });

  test('on numbers that are not integers, exclusiveMinimum 0 is not minimum 0, nor minimum 1', () => {
    const numbers = (bounds: Json) => {
      const document = copy();
      const schema = limit(document);
      schema.type = 'number';
      delete schema.minimum;
      Object.assign(schema, bounds);
      return document;
    };
    expect(summary(compare(numbers({ exclusiveMinimum: 0 }), numbers({ minimum: 0 })))).toEqual([['request-parameter-min-increased', 'breaking-client', LIMIT]]);
    expect(summary(compare(numbers({ exclusiveMinimum: 0 }), numbers({ minimum: 1 })))).toEqual([['request-parameter-min-decreased', 'breaking-implementation', LIMIT]]);
  });

  test('multipleOf where it decides: 1 on an integer is none; number with multipleOf 1 is integer; a step moves the bounds it implies', () => {
    const one = copy();
    limit(one).multipleOf = 1;
    expect(compare(one)).toEqual([]);

    const number = copy();
    Object.assign(limit(number), { type: 'number', multipleOf: 1 });
    expect(compare(number)).toEqual([]);

    // Multiples of 5 from 1 to 1000 are the multiples of 5 from 5 to 1000.
    const fives = (minimum: number) => {
      const document = copy();
      Object.assign(limit(document), { multipleOf: 5, minimum });
      return document;
    };
    expect(compare(fives(5), fives(1))).toEqual([]);
    expect(summary(compare(fives(6), fives(1)))).toEqual([['request-parameter-min-increased', 'breaking-client', LIMIT]]);

    // A new step is one change, reported as that (not also as the bounds it moves): fewer values are accepted.
    const findings = compare(fives(1));
    expect(summary(findings)).toEqual([['request-parameter-constraint-tightened', 'breaking-client', LIMIT]]);
    expect(findings[0]!.detail).toBe('multipleOf none → 5');
  });
});

describe('the comparison’s shortcuts', () => {
  test('the contract against its last release: what is found without walking what is written alike is what a full walk finds', () => {
    const last = listReleases().at(-1);
    if (!last) return;
    const release = readDocument(last.document);
    const findings = compareDocuments(release, contract);
    expect(compareDocuments(release, contract, { walkEverything: true })).toEqual(findings);
    // And a copy of the contract compares equal to it without a walk.
    expect(compareDocuments(contract, copy())).toEqual([]);
  });
});
