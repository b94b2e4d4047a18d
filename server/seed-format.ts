// The seed format (SEED_FILE, or an object given to the test harness): users, tokens, organizations, memberships,
// teams, collections and spaces with pages. Typed from the contract's schemas alone, so that the server package's
// declarations of its test harness (server/testing/) carry it without the server's own modules. Documented in
// server/README.md (Seed file); applied by seed.ts.
import type { components, Readable } from '../generated/schema.d.ts';

type Model<Name extends keyof components['schemas']> = Readable<components['schemas'][Name]>;

export interface SeedPage {
  id?: string;
  title: string;
  slug?: string;
  description?: string;
  markdown?: string;
  pages?: SeedPage[];
}

export interface SeedFixture {
  users?: { id?: string; displayName: string; email?: string; photoURL?: string; tokens?: string[] }[];
  organizations?: {
    id?: string;
    title: string;
    type?: Model<'OrganizationType'>;
    emailDomains?: string[];
    members?: { user: string; role?: Model<'Role'> | null }[];
    teams?: { id?: string; title: string; members?: { user: string; role?: Model<'TeamMemberRole'> }[]; spaces?: string[] }[];
    collections?: { id?: string; title: string; parent?: string }[];
    spaces?: {
      id?: string;
      title: string;
      parent?: string;
      visibility?: Model<'SpaceVisibility'>;
      pages?: SeedPage[];
    }[];
  }[];
}
