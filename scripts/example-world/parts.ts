// The parts of the examples' world made through the API, in the order they are built: a part may use the records of
// the parts before it (world.ts); `buildWorld` builds them all on a server.
import type { ManualClock } from '../../server/common/clock.ts';
import { contentPart } from './content.ts';
import { organizationPart } from './organizations.ts';
import { publishingPart } from './publishing.ts';
import type { WorldMaker, WorldPart } from './world.ts';

export const WORLD_PARTS: WorldPart[] = [organizationPart, contentPart, publishingPart];

/** What the world is built with: a server's clients, its clock and background work, and the outside services' addresses. */
export interface WorldSetting {
  as: WorldMaker['as'];
  clock: ManualClock;
  /** Where each origin the examples name is served (`startOutside`'s `origins`). */
  origins: ReadonlyMap<string, string>;
  settled(): Promise<void>;
  /** Ids the examples use as they are (the seed's): a part that says the server made one is a mistake. */
  seeded?: ReadonlySet<string>;
}

/**
 * Builds every part of the world through the API, the clock a minute on after each record made; the server's id of
 * each record the examples name.
 */
export async function buildWorld(setting: WorldSetting): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const maker: WorldMaker = {
    as: setting.as,
    clock: setting.clock,
    made(exampleId, id) {
      if (ids.has(exampleId) || setting.seeded?.has(exampleId)) throw new Error(`the examples' world names two records ${exampleId}`);
      ids.set(exampleId, id);
      setting.clock.advance(60_000);
      return id;
    },
    id(exampleId) {
      const id = ids.get(exampleId);
      if (id === undefined) throw new Error(`the examples' world has no record ${exampleId} yet`);
      return id;
    },
    outside(exampleUrl) {
      const origin = new URL(exampleUrl).origin;
      const served = setting.origins.get(origin);
      if (served === undefined) throw new Error(`the examples' world serves nothing at ${origin}`);
      return exampleUrl.replace(origin, served);
    },
    settled: setting.settled,
  };
  for (const part of WORLD_PARTS) await part.build(maker);
  await maker.settled();
  return ids;
}
