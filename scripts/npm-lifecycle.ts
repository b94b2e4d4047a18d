// What the running npm script is part of, for the steps of the root package's `prepare`.

/**
 * Whether this run is the `prepare` of `npm pack` or `npm publish`: they make the client package, which holds no
 * server and no native addon (package.json's `files`), so the steps that build those are skipped there (the server's
 * build would be a large part of what `npm pack` takes). `npm ci`, `npm install` and the `build:*` scripts run them.
 */
export const packingTheClient = () =>
  process.env.npm_lifecycle_event === 'prepare' && (process.env.npm_command === 'pack' || process.env.npm_command === 'publish');
