// A union whose alternatives are told apart by one property, the tag, is judged as the set of its tags, each
// selecting one member: a tag added, removed or renamed, or selecting another member, is a change of the union,
// not of the tag property's values. A union is discriminated when it has a `discriminator` (its own, or the one
// every member carries), or, without one, when every member requires one same property whose values (`enum` or
// `const`) are strings no other member accepts: the way TypeSpec writes a union of models tagged by a literal.
import { child, isObject, type JsonObject } from './pointer.ts';
import { type SchemaKind } from './rules.ts';
import { normalize, refName, type Keyword, type Normalized } from './schema.ts';
import { compareNormalized, declared, place, schemaFinding, type Walk } from './walk.ts';
import { pairMembers, type Member } from './members.ts';

interface Tag {
  member: Member;
  /** Where the tag is declared: the `mapping`, the member's tag property, or the member (its name is the tag). */
  path: string;
}

interface Tagging {
  property: string;
  tags: Map<string, Tag>;
}

interface Discriminator {
  propertyName: string;
  mapping?: JsonObject;
  /** The schema that declares it. */
  path: string;
}

function discriminatorOf(schema: Normalized, members: readonly Member[]): Discriminator | undefined {
  const read = (keyword: Keyword | undefined): Discriminator | undefined => {
    const value = keyword?.value;
    if (!isObject(value) || typeof value.propertyName !== 'string') return undefined;
    return { propertyName: value.propertyName, ...(isObject(value.mapping) ? { mapping: value.mapping } : {}), path: keyword!.path };
  };
  const own = read(schema.discriminator);
  if (own) return own;
  const inherited = members.map((member) => read(member.schema.discriminator));
  const first = inherited[0];
  return first && inherited.every((entry) => entry?.propertyName === first.propertyName) ? first : undefined;
}

/** The values a member accepts for the tag property, when they are a list of strings. */
function tagValues(document: JsonObject, member: Member, property: string): { values: string[]; path: string } | undefined {
  const location = member.schema.properties.get(property);
  if (!location) return undefined;
  const values = normalize(document, location).enumValues;
  if (!values || values.value.length === 0 || !values.value.every((value) => typeof value === 'string')) return undefined;
  return { values: values.value as string[], path: values.path };
}

/**
 * Properties that tag the members without a `discriminator`: required by each, string values no other accepts. A
 * schema that is no union (one member) is tagged as well: it is compared with a union that was or becomes one.
 */
function implicitTags(document: JsonObject, members: readonly Member[]): string[] {
  if (members.length === 0) return [];
  return [...members[0]!.schema.required].sort().filter((property) => {
    const seen = new Set<string>();
    for (const member of members) {
      if (!member.schema.required.has(property)) return false;
      const tags = tagValues(document, member, property);
      if (!tags) return false;
      for (const value of tags.values) {
        if (seen.has(value)) return false;
        seen.add(value);
      }
    }
    return true;
  });
}

/**
 * Each tag and the member it selects: the `mapping`'s entries (a member named by its `$ref`; an entry whose member
 * does not accept the tag is void, as a validator would refuse the value), then the values each member accepts for
 * the tag property, then, with a `discriminator`, the name of a member that has neither (OpenAPI's implicit
 * mapping). Undefined when some member has no tag, or a tag would select two members.
 */
function taggingOf(document: JsonObject, members: readonly Member[], property: string, discriminator: Discriminator | undefined): Tagging | undefined {
  const tags = new Map<string, Tag & { mapped?: boolean }>();
  const values = new Map(members.map((member) => [member, tagValues(document, member, property)]));
  const tagged = new Set<Member>();
  if (discriminator?.mapping) {
    const path = child(discriminator.path, 'discriminator', 'mapping');
    for (const [tag, target] of Object.entries(discriminator.mapping)) {
      if (typeof target !== 'string') continue;
      const name = refName(target) ?? (target.includes('/') ? undefined : target);
      const member = members.find((candidate) => candidate.schema.refName !== undefined && candidate.schema.refName === name);
      if (!member) continue;
      const own = values.get(member);
      if (own && !own.values.includes(tag)) continue;
      tags.set(tag, { member, path, mapped: true });
      tagged.add(member);
    }
  }
  for (const member of members) {
    const own = values.get(member);
    if (own) {
      for (const value of own.values) {
        const known = tags.get(value);
        if (known?.mapped) continue;
        if (known && known.member !== member) return undefined;
        tags.set(value, { member, path: own.path });
        tagged.add(member);
      }
    } else if (!tagged.has(member)) {
      const name = member.schema.refName;
      if (!discriminator || name === undefined || tags.has(name)) return undefined;
      tags.set(name, { member, path: member.schema.origin });
      tagged.add(member);
    }
  }
  if (members.some((member) => !tagged.has(member))) return undefined;
  return { property, tags };
}

/** Compares two unions as discriminated unions, when both are, by the same property; false when they are not. */
export function compareDiscriminated(w: Walk, was: Normalized, now: Normalized, field: string, wasMembers: Member[], nowMembers: Member[]): boolean {
  const { base, revision } = w.context;
  if (wasMembers.length < 2 && nowMembers.length < 2) return false;
  const wasDiscriminator = discriminatorOf(was, wasMembers);
  const nowDiscriminator = discriminatorOf(now, nowMembers);
  const wasCandidates = wasDiscriminator ? [wasDiscriminator.propertyName] : implicitTags(base, wasMembers);
  if (wasCandidates.length === 0) return false;
  const nowCandidates = nowDiscriminator ? [nowDiscriminator.propertyName] : implicitTags(revision, nowMembers);
  // Of several properties that tag the members on both sides, the first whose tags changed (else the first).
  const taggings = wasCandidates
    .filter((candidate) => nowCandidates.includes(candidate))
    .map((candidate) => [taggingOf(base, wasMembers, candidate, wasDiscriminator), taggingOf(revision, nowMembers, candidate, nowDiscriminator)] as const)
    .filter((pair): pair is readonly [Tagging, Tagging] => pair[0] !== undefined && pair[1] !== undefined);
  const signature = (tagging: Tagging) => [...tagging.tags.keys()].sort().join('\u0000');
  const chosen = taggings.find(([a, b]) => signature(a) !== signature(b)) ?? taggings[0];
  if (!chosen) return false;
  const [before, after] = chosen;
  const property = before.property;

  // Members are paired by their component's name, then by the tags they share (the most first), then as any
  // union's members are.
  const given: [Member, Member][] = [];
  for (const a of wasMembers) {
    const b = a.schema.refName === undefined ? undefined : nowMembers.find((candidate) => candidate.schema.refName === a.schema.refName);
    if (b && !given.some(([, taken]) => taken === b)) given.push([a, b]);
  }
  const shared = new Map<Member, Map<Member, number>>();
  for (const [tag, entry] of before.tags) {
    const other = after.tags.get(tag);
    if (!other) continue;
    const counts = shared.get(entry.member) ?? shared.set(entry.member, new Map()).get(entry.member)!;
    counts.set(other.member, (counts.get(other.member) ?? 0) + 1);
  }
  const candidates = [...shared].flatMap(([a, counts]) => [...counts].map(([b, count]) => ({ a, b, count })));
  candidates.sort((x, y) => y.count - x.count);
  for (const { a, b } of candidates) {
    if (given.some(([x, y]) => x === a || y === b)) continue;
    given.push([a, b]);
  }
  const { pairs } = pairMembers(w, wasMembers, nowMembers, given);
  const partner = new Map(pairs);
  const previous = new Map(pairs.map(([a, b]) => [b, a]));

  const union = declared(w, was, now, now.variants?.path ?? now.path);
  /** A member as the details name it: its component, when it is one. */
  const of = (member: Member) => (member.schema.refName === undefined ? '' : ` (\`${member.schema.refName}\`)`);
  const label = (member: Member) => (member.schema.refName === undefined ? 'another alternative' : `\`${member.schema.refName}\``);
  const name = (tag: string) => JSON.stringify(tag);
  /** Where a member's tags are declared in the revision, for a tag it lost. */
  const tagsOf = (member: Member) => [...after.tags.values()].find((entry) => entry.member === member);
  const report = (kind: SchemaKind, path: string, detail: string, value: string, was?: string) =>
    schemaFinding(w, kind, path, field, `discriminator \`${property}\`: ${detail}`, { value, args: { property, ...(was === undefined ? {} : { was: [was], now: [value] }) } });
  const at = (member: Member, path: string) => {
    const old = previous.get(member);
    return old ? declared(w, old.schema, member.schema, path) : place(w, member.schema.origin);
  };

  const fresh = new Map<Member, string[]>();
  for (const [tag, entry] of after.tags) {
    const old = before.tags.get(tag);
    if (!old) (fresh.get(entry.member) ?? fresh.set(entry.member, []).get(entry.member)!).push(tag);
    else if (partner.get(old.member) !== entry.member) {
      report('discriminator-mapping-changed', at(entry.member, entry.path), `tag ${name(tag)} now selects ${label(entry.member)} (was ${label(old.member)})`, tag);
    }
  }
  const gone = new Map<Member, string[]>();
  for (const [tag, entry] of before.tags) {
    if (!after.tags.has(tag)) (gone.get(entry.member) ?? gone.set(entry.member, []).get(entry.member)!).push(tag);
  }
  for (const [member, tags] of gone) {
    const now = partner.get(member);
    const added = now ? fresh.get(now) ?? [] : [];
    for (const tag of tags) {
      const renamed = added.shift();
      if (now && renamed !== undefined) {
        report('discriminator-tag-renamed', at(now, after.tags.get(renamed)!.path), `tag ${name(tag)} renamed ${name(renamed)}${of(now)}`, renamed, tag);
      } else {
        const where = now ? tagsOf(now) : undefined;
        report('discriminator-tag-removed', where ? at(now!, where.path) : union, `tag ${name(tag)}${of(member)} removed`, tag);
      }
    }
  }
  for (const [member, tags] of fresh) {
    for (const tag of tags) report('discriminator-tag-added', at(member, after.tags.get(tag)!.path), `new tag ${name(tag)}${of(member)}`, tag);
  }

  // The members compared, their tag property without its values: those are the tags, judged above.
  const inner: Walk = { ...w, parent: place(w, now.path), tagProperty: property };
  for (const [a, b] of pairs) compareNormalized(inner, a.schema, b.schema, field);
  return true;
}
