// The handler table: one handler per operation of the contract, assembled from the resource groups.
import type { Express } from 'express';
import type { AppContext } from '../context/context.ts';
import type { HandlerTable } from './types.ts';
import { changeRequestHandlers, changeRequestRoutes } from './change-requests.ts';
import { collectionHandlers } from './collections.ts';
import { commentHandlers } from './comments.ts';
import { contentHandlers, contentRoutes } from './content.ts';
import { gitHandlers } from './git.ts';
import { integrationHandlers } from './integrations.ts';
import { memberHandlers } from './members.ts';
import { openAPISpecHandlers, openAPISpecRoutes } from './openapi.ts';
import { organizationHandlers } from './organizations.ts';
import { samlHandlers } from './saml.ts';
import { siteStructureHandlers } from './site-structure.ts';
import { siteHandlers } from './sites.ts';
import { spaceHandlers } from './spaces.ts';
import { teamHandlers } from './teams.ts';
import { translationHandlers } from './translations.ts';

/** The handler table: each handler gets the request and the scope of its unit of work (handlers/types.ts). */
export function createHandlers(): HandlerTable {
  return {
    ...organizationHandlers,
    ...memberHandlers,
    ...teamHandlers,
    ...samlHandlers,
    ...collectionHandlers,
    ...spaceHandlers,
    ...contentHandlers,
    ...changeRequestHandlers,
    ...commentHandlers,
    ...siteHandlers,
    ...siteStructureHandlers,
    ...openAPISpecHandlers,
    ...translationHandlers,
    ...integrationHandlers,
    ...gitHandlers,
  };
}

/** Routes outside `/v1`: files, PDFs and OpenAPI documents the API's answers point at. */
export function registerRoutes(ctx: AppContext, app: Express): void {
  contentRoutes(ctx, app);
  changeRequestRoutes(ctx, app);
  openAPISpecRoutes(ctx, app);
}
