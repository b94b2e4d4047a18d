// The examples' world, made through the API: content, change requests, comments and Git.
import type { WorldPart } from './world.ts';

export const contentPart: WorldPart = {
  async build() {},
};
