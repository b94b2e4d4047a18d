// Integrations: publishing (global names, owned by an organization), installations in organizations, their events
// (delivered to a development tunnel in development mode), the spaces and sites they cover, and block rendering.
import type { Model } from '../common/contract.ts';
import { blockContentSecurityPolicy, renderBlock } from '../domain/integration-blocks.ts';
import { eventTrace, presentEvent, presentInstallation, presentIntegration, presentIntegrationSites, presentIntegrationSpaces } from '../domain/integration-presenters.ts';
import {
  integrationEvent,
  integrationEventsPage,
  integrationInstallationsPage,
  integrationSitesPage,
  integrationSpacesPage,
  integrationsPage,
} from '../domain/integration-lists.ts';
import { disableDevMode, enableDevMode, installIntegration, publishIntegration, unpublishIntegration } from '../domain/integration-publishing.ts';
import { integrationAccess } from '../domain/integrations.ts';
import { integrationOwnerRow } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import type { HandlerGroup } from './types.ts';


type Operations =
  | 'listIntegrations'
  | 'getIntegration'
  | 'publishIntegration'
  | 'unpublishIntegration'
  | 'listIntegrationInstallations'
  | 'installIntegration'
  | 'listIntegrationEvents'
  | 'getIntegrationEvent'
  | 'listIntegrationSpaces'
  | 'listIntegrationSites'
  | 'enableIntegrationDevMode'
  | 'disableIntegrationDevMode'
  | 'renderIntegrationBlock';

export const integrationHandlers: HandlerGroup<Operations> = {
  async listIntegrations({ query, caller }, ctx) {
    const { page: cursor, limit, ...filters } = query;
    const page = await integrationsPage(ctx, caller, { list: listId('listIntegrations', caller.user.id, filters), page: cursor, limit, filters });
    const items: Model<'Integration'>[] = [];
    for (const row of page.items) items.push(await presentIntegration(ctx, row, caller));
    return { status: 200, body: { ...page, items } };
  },

  async getIntegration({ params, caller }, ctx) {
    // The owner read with the integration (one round trip on PostgreSQL), shown only once the access allows.
    const [access, owner] = await Promise.all([integrationAccess(ctx, caller, params.integrationName), integrationOwnerRow(ctx, params.integrationName)]);
    return { status: 200, body: await presentIntegration(ctx, access.integration, caller, owner) };
  },

  async publishIntegration({ params, body, caller }, ctx) {
    const integration = await publishIntegration(ctx, caller, params.integrationName, body);
    return { status: 200, body: await presentIntegration(ctx, integration, caller) };
  },

  async unpublishIntegration({ params, caller }, ctx) {
    await unpublishIntegration(ctx, caller, params.integrationName);
    return { status: 204 };
  },

  async listIntegrationInstallations({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await integrationInstallationsPage(ctx, caller, access, {
      list: listId('listIntegrationInstallations', params.integrationName, caller.user.id, query.externalId),
      page: query.page,
      limit: query.limit,
      externalId: query.externalId,
    });
    const items: Model<'IntegrationInstallation'>[] = [];
    for (const row of page.items) items.push(await presentInstallation(ctx, row));
    return { status: 200, body: { ...page, items } };
  },

  async installIntegration({ params, body, caller }, ctx) {
    const installation = await installIntegration(ctx, caller, params.integrationName, body.organization);
    return { status: 201, body: await presentInstallation(ctx, installation) };
  },

  async listIntegrationEvents({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await integrationEventsPage(ctx, caller, access, {
      list: listId('listIntegrationEvents', params.integrationName, caller.user.id),
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: page.items.map(presentEvent) } };
  },

  async getIntegrationEvent({ params, caller }, ctx) {
    // The trace read with the integration (a round trip less on PostgreSQL), shown only once the event is found in
    // the caller's scope.
    const [access, trace] = await Promise.all([integrationAccess(ctx, caller, params.integrationName), eventTrace(ctx.db, params.eventId)]);
    const event = await integrationEvent(ctx, caller, access, params.eventId);
    return { status: 200, body: { event: presentEvent(event), trace } };
  },

  async listIntegrationSpaces({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await integrationSpacesPage(ctx, caller, access, {
      list: listId('listIntegrationSpaces', params.integrationName, caller.user.id, query.externalId, query.extended ?? false),
      page: query.page,
      limit: query.limit,
      externalId: query.externalId,
    });
    return { status: 200, body: { ...page, items: await presentIntegrationSpaces(ctx, page.items, query.extended) } };
  },

  async listIntegrationSites({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await integrationSitesPage(ctx, caller, access, {
      list: listId('listIntegrationSites', params.integrationName, caller.user.id, query.externalId, query.extended ?? false),
      page: query.page,
      limit: query.limit,
      externalId: query.externalId,
    });
    return { status: 200, body: { ...page, items: await presentIntegrationSites(ctx, page.items, query.extended) } };
  },

  async enableIntegrationDevMode({ params, body, caller }, ctx) {
    await enableDevMode(ctx, caller, params.integrationName, body);
    return { status: 204 };
  },

  async disableIntegrationDevMode({ params, caller }, ctx) {
    await disableDevMode(ctx, caller, params.integrationName);
    return { status: 204 };
  },

  async renderIntegrationBlock({ params, query, caller }, ctx) {
    const { integration } = await integrationAccess(ctx, caller, params.integrationName);
    const element = renderBlock(integration, query.request);
    const csp = blockContentSecurityPolicy(integration);
    return { status: 200, body: { type: 'element', element }, ...(csp ? { headers: { 'content-security-policy': csp } } : {}) };
  },
};
