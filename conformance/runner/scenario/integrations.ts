// The scenario's integration group: an integration of the organization published, in development mode (its events
// delivered to the runner's tunnel), installed, its events, lists and block rendering read, unpublished.
import LZString from 'lz-string';
import { StepFailed } from '../session.ts';
import { addressHint, NEEDS_ADDRESS, type Scenario } from './context.ts';

/**
 * An integration of the organization: publish, development mode (events to the runner's tunnel), install,
 * events, render, unpublish.
 */
export function integrations(sc: Scenario): Promise<void> {
  const { s, env, organizationId, runId } = sc;
  const { fixtures } = env;
  return s.group('integrations', async (defer) => {
    const integrationName = `docs-conformance-${runId}`;
    const onIntegration = { integrationName };
    const blockId = 'status';
    await s.must('publishIntegration', {
      path: onIntegration,
      body: {
        title: 'Docs conformance',
        description: 'Published by the conformance runner; unpublished when it ends.',
        organization: organizationId,
        visibility: 'private',
        target: 'all',
        blocks: [{ id: blockId, title: 'Status', markdown: { codeblock: 'status', body: 'Status: {{props.state}}' } }],
      },
    });
    defer(() => s.cleanup('unpublishIntegration', { path: onIntegration }));
    await s.call('getIntegration', { path: onIntegration });
    await s.call('listIntegrations', { path: undefined, query: { search: integrationName } });
    const tunnel = await s.call(
      'enableIntegrationDevMode',
      { path: onIntegration, body: { tunnelUrl: fixtures.tunnelUrl, all: false } },
      { refusable: NEEDS_ADDRESS },
    );
    if (!tunnel.ok && tunnel.status >= 400 && tunnel.status < 500) s.addressHint ??= addressHint(fixtures.url);
    let devMode = tunnel.ok;
    defer(async () => {
      if (devMode) await s.cleanup('disableIntegrationDevMode', { path: onIntegration });
    });
    const delivered = fixtures.deliveries.length;
    await s.must('installIntegration', { path: onIntegration, body: { organization: organizationId } });
    if (tunnel.ok) await s.waitFor(() => fixtures.deliveries.length > delivered, 'delivery of the installation event to the tunnel');
    const events = await s.poll('listIntegrationEvents', { path: onIntegration, query: {} }, (list) => list.items.length > 0, 'integration events');
    const event = events?.items[0];
    if (!event) throw new StepFailed('the installation recorded no event');
    await s.call('getIntegrationEvent', { path: { integrationName, eventId: event.id } });
    await s.call('listIntegrationInstallations', { path: onIntegration, query: {} });
    await s.call('listIntegrationSpaces', { path: onIntegration, query: { extended: true } });
    await s.call('listIntegrationSites', { path: onIntegration, query: { extended: true } });
    const request = LZString.compressToEncodedURIComponent(JSON.stringify({ blockId, props: { state: 'operational' } }));
    await s.call('renderIntegrationBlock', { path: onIntegration, query: { request } });
    await s.call('disableIntegrationDevMode', { path: onIntegration });
    devMode = false;
    await s.call('unpublishIntegration', { path: onIntegration });
  });
}
