// The sizes of what express-openapi-validator keeps per request it is given: its request validator's middlewares
// (`middlewareCache`) and its response validator's checks (`validatorsCache`), by method, route and Content-Type. It
// has no public reading of them: each instance is found as it validates and its cache read by name, and a version
// that renames either fails here, loudly, rather than leave a test that counts nothing (test/api/request-bounds.test.ts).
import { RequestValidator } from 'express-openapi-validator/dist/middlewares/openapi.request.validator.js';
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator.js';

type Method = (this: object, ...args: unknown[]) => unknown;

/** The caches' entries, summed over every validator instance seen since `watchValidatorCaches`. */
export interface ValidatorCacheSizes {
  requests: number;
  responses: number;
}

/** Sizes of the caches of each request and response validator that validates from now on; `stop()` puts them back. */
export function watchValidatorCaches(): { sizes(): ValidatorCacheSizes; stop(): void } {
  const requestValidators = new Set<object>();
  const responseValidators = new Set<object>();
  const request = RequestValidator.prototype as unknown as Record<string, Method>;
  const response = ResponseValidator.prototype as unknown as Record<string, Method>;
  const validate = request.validate;
  const build = response._getOrBuildValidator;
  if (typeof validate !== 'function' || typeof build !== 'function') {
    throw new Error('express-openapi-validator: no RequestValidator.validate or ResponseValidator._getOrBuildValidator; follow its new version here');
  }
  request.validate = function (this: object, ...args: unknown[]) {
    requestValidators.add(this);
    return validate.apply(this, args);
  };
  response._getOrBuildValidator = function (this: object, ...args: unknown[]) {
    responseValidators.add(this);
    return build.apply(this, args);
  };
  const entries = (validators: Set<object>, field: string) =>
    [...validators].reduce((sum, validator) => {
      const cache = (validator as Record<string, unknown>)[field];
      if (cache === null || typeof cache !== 'object') throw new Error(`express-openapi-validator: no ${field} on its validator; follow its new version here`);
      return sum + Object.keys(cache).length;
    }, 0);
  return {
    sizes: () => ({ requests: entries(requestValidators, 'middlewareCache'), responses: entries(responseValidators, 'validatorsCache') }),
    stop() {
      request.validate = validate;
      response._getOrBuildValidator = build;
    },
  };
}
