// The examples' world, made through the API: sites and their structure, OpenAPI specifications, translations and
// integrations.
import type { WorldPart } from './world.ts';

export const publishingPart: WorldPart = {
  async build() {},
};
