// The parts of the examples' world made through the API, in the order they are built: a part may use the records of
// the parts before it (world.ts).
import { contentPart } from './content.ts';
import { organizationPart } from './organizations.ts';
import { publishingPart } from './publishing.ts';
import type { WorldPart } from './world.ts';

export const WORLD_PARTS: WorldPart[] = [organizationPart, contentPart, publishingPart];
