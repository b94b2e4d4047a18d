// The examples' world, made through the API: organizations, members, teams, SAML, collections and spaces (beyond the
// seed of world.ts).
import type { WorldPart } from './world.ts';

export const organizationPart: WorldPart = {
  async build() {},
};
