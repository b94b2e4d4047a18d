// The types of eslint.config.js's exports, for the code that reads its layers (test/tooling/layers.test.ts).
export interface Layer {
  name: string;
  role: string;
  /** Folders under server/, with every folder below them. */
  folders: string[];
  /** Modules at server/'s top level. */
  modules: string[];
  /** The layers this one may import from, besides itself. */
  imports: string[];
}
export const LAYERS: Layer[];
export interface RepositoryLayer {
  /** A folder at the repository's top. */
  folder: string;
  role: string;
  /** The folders this one may import from, besides itself. */
  imports: string[];
}
export const REPOSITORY_LAYERS: RepositoryLayer[];
declare const config: unknown;
export default config;
