// Type-level checks of the statuses a call's result carries, compiled and never run (as client-types.ts):
// `status` narrows `data`, `error` and `response` to the answer the contract declares for it. Each
// `@ts-expect-error` fails the type check if the line below it stops being an error.
import { expectTypeOf } from 'vitest';
import { ApiError, createDocsClient, paginate, type components, type operations, type Readable, type ResultOf, type UndeclaredStatus } from '../../client/index.ts';

type Space = Readable<components['schemas']['Space']>;
type Organization = Readable<components['schemas']['Organization']>;
type Envelope = Readable<components['schemas']['ErrorEnvelope']>;
/** The statuses an operation declares, as generated/schema.d.ts has them. */
type Declared<Operation extends keyof operations> = keyof operations[Operation]['responses'];
type DeclaredErrors<Operation extends keyof operations> = Exclude<Declared<Operation>, 200 | 201 | 204>;

const docs = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't' });
const strict = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't', throwOnError: true });
const acme = { params: { path: { organizationId: 'acme' } } };
const space = { params: { path: { spaceId: 's' } } };

export async function read() {
  const result = await docs.GET('/v1/spaces/{spaceId}', space);
  expectTypeOf(result.status).toEqualTypeOf<Declared<'getSpace'> | UndeclaredStatus<DeclaredErrors<'getSpace'>>>();
  if (result.status === 200) {
    expectTypeOf(result.data).toEqualTypeOf<Space>();
    expectTypeOf(result.error).toEqualTypeOf<undefined>();
    expectTypeOf(result.response.status).toEqualTypeOf<200>();
  }
  if (result.status === 404) {
    expectTypeOf(result.data).toEqualTypeOf<undefined>();
    expectTypeOf(result.error.error.code).toEqualTypeOf<404>();
    expectTypeOf(result.error).toExtend<Envelope>();
    // @ts-expect-error the data of an error status: there is none
    result.data.title;
  }
  // Without `status`, as before: `error` checked first, then `data` is there.
  if (!result.error) expectTypeOf(result.data).toEqualTypeOf<Space>();
  // @ts-expect-error data read before checking error or status
  result.data.title;
  // @ts-expect-error a status the operation does not have, nor HTTP: 600
  if (result.status === 600) return;
}

export async function create() {
  const result = await docs.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Handbook' } });
  if (result.status === 201) {
    expectTypeOf(result.data).toEqualTypeOf<Space>();
    // Declared for the 201: the new space's address, in any case of its name.
    expectTypeOf(result.response.headers.get('Location')).toEqualTypeOf<string>();
    expectTypeOf(result.response.headers.get('location')).toEqualTypeOf<string>();
    // Not declared: maybe absent.
    expectTypeOf(result.response.headers.get('x-request-id')).toEqualTypeOf<string | null>();
  }
  // @ts-expect-error the create answers 201, not 200
  if (result.status === 200) return;
  const { status, data } = await strict.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Handbook' } });
  expectTypeOf(status).toEqualTypeOf<201>();
  expectTypeOf(data).toEqualTypeOf<Space>();
}

export async function remove() {
  const result = await docs.DELETE('/v1/spaces/{spaceId}', space);
  if (result.status === 204) expectTypeOf(result.data).toEqualTypeOf<undefined>();
  const removed = await strict.DELETE('/v1/spaces/{spaceId}', space);
  expectTypeOf(removed.status).toEqualTypeOf<204>();
  expectTypeOf(removed.data).toEqualTypeOf<undefined>();
}

/** An operation with two success statuses, made of two of the contract's answers: 200 an organization, 201 a space. */
type ReadOrCreate = { responses: Pick<operations['getOrganization']['responses'], 200 | 404> & Pick<operations['createSpace']['responses'], 201> };

export function severalSuccesses(result: ResultOf<ReadOrCreate>) {
  if (result.status === 200) {
    expectTypeOf(result.data).toEqualTypeOf<Organization>();
    expectTypeOf(result.response.headers.get('location')).toEqualTypeOf<string | null>();
  }
  if (result.status === 201) {
    expectTypeOf(result.data).toEqualTypeOf<Space>();
    expectTypeOf(result.response.headers.get('location')).toEqualTypeOf<string>();
  }
  if (!result.error) expectTypeOf(result.data).toEqualTypeOf<Organization | Space>();
  if (result.status === 404) expectTypeOf(result.error.error.code).toEqualTypeOf<404>();
}

export async function everyErrorStatus() {
  // updateOrganization declares every error status of the contract.
  expectTypeOf<DeclaredErrors<'updateOrganization'>>().toEqualTypeOf<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503>();
  const result = await docs.PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Acme' } });
  if (result.status === 200) expectTypeOf(result.data).toEqualTypeOf<Organization>();
  if (result.status === 400) expectTypeOf(result.error.error.code).toEqualTypeOf<400>();
  if (result.status === 401) expectTypeOf(result.error.error.code).toEqualTypeOf<401>();
  if (result.status === 403) expectTypeOf(result.error.error.code).toEqualTypeOf<403>();
  if (result.status === 404) expectTypeOf(result.error.error.code).toEqualTypeOf<404>();
  if (result.status === 409) expectTypeOf(result.error.error.code).toEqualTypeOf<409>();
  if (result.status === 413) expectTypeOf(result.error.error.code).toEqualTypeOf<413>();
  if (result.status === 415) expectTypeOf(result.error.error.code).toEqualTypeOf<415>();
  if (result.status === 429) {
    expectTypeOf(result.error.error.code).toEqualTypeOf<429>();
    expectTypeOf(result.response.headers.get('Retry-After')).toEqualTypeOf<`${number}`>();
  }
  if (result.status === 500) expectTypeOf(result.error.error.code).toEqualTypeOf<500>();
  if (result.status === 503) {
    expectTypeOf(result.error.error.code).toEqualTypeOf<503>();
    expectTypeOf(result.response.headers.get('retry-after')).toEqualTypeOf<`${number}`>();
  }
  // Retry-After is declared for 429 and 503 only.
  if (result.status === 400) expectTypeOf(result.response.headers.get('retry-after')).toEqualTypeOf<string | null>();
}

export async function undeclaredStatus() {
  const result = await docs.GET('/v1/spaces/{spaceId}', space);
  // A proxy's 502, which getSpace does not declare: an error answer, typed with the contract's envelope.
  if (result.status === 502) {
    expectTypeOf(result.status).toEqualTypeOf<502>();
    expectTypeOf(result.data).toEqualTypeOf<undefined>();
    expectTypeOf(result.error).toEqualTypeOf<Envelope>();
    expectTypeOf(result.error.error.code).toEqualTypeOf<number>();
  }
  // 409 is declared by other operations, not by getSpace: undeclared here.
  if (result.status === 409) expectTypeOf(result.error).toEqualTypeOf<Envelope>();
  if (result.status === 404 || result.status === 502) expectTypeOf(result.error.error.code).toEqualTypeOf<404 | number>();
}

export async function throwing() {
  const { status, data } = await strict.GET('/v1/spaces/{spaceId}', space);
  expectTypeOf(status).toEqualTypeOf<200>();
  expectTypeOf(data).toEqualTypeOf<Space>();
  try {
    for await (const member of paginate(docs, '/v1/orgs/{organizationId}/members', acme)) expectTypeOf(member.user.id).toEqualTypeOf<string>();
  } catch (failure) {
    if (!(failure instanceof ApiError)) throw failure;
    if (failure.status === 404) {
      expectTypeOf(failure.body.error.code).toEqualTypeOf<404>();
      expectTypeOf(failure.response.status).toEqualTypeOf<404>();
    }
    if (failure.status === 429) expectTypeOf(failure.response.headers.get('Retry-After')).toEqualTypeOf<`${number}`>();
    // An undeclared status: its body is the envelope when it is JSON.
    if (failure.status === 502) expectTypeOf(failure.body).toEqualTypeOf<Envelope | undefined>();
    // @ts-expect-error the body of an undeclared status may be absent
    if (failure.status === 502) failure.body.error;
    expectTypeOf(failure.code).toEqualTypeOf<number>();
  }
}
