// The tables of the database as the store's queries see them (Kysely's types): one interface per table, a column typed
// as both engines give it back (TEXT a string, INTEGER and REAL a number, BLOB a Buffer), `Generated<>` for one with a
// default. Each engine's migrations make the schema; the full-text index is each engine's own (server/docs/store.md,
// "Migrations").
import type { Generated, Selectable } from 'kysely';

export interface ChangeRequestContributorsTable {
  change_request_id: string;
  user_id: string;
}

export interface ChangeRequestPdfsTable {
  id: string;
  change_request_id: string;
  file_name: string;
  content: Buffer;
  created_at: string;
  expires_at: string;
}

export interface ChangeRequestsTable {
  id: string;
  space_id: string;
  number: number;
  status: Generated<string>;
  subject: string | null;
  agent_task_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** The change request's current content. */
  revision_id: string;
  /** The space revision it was created from. */
  revision_initial: string;
  /** The space revision last brought in by an update from the main content. */
  revision_merged_ancestor: string | null;
  /** The space revision its merge produced. */
  revision_merged: string | null;
}

export interface CollectionsTable {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  description: string | null;
  default_level: string | null;
  position: number;
  created_at: string;
}

export interface CommentReactionsTable {
  comment_id: string;
  user_id: string;
  emoji: string;
  reacted_at: string;
}

export interface CommentsTable {
  id: string;
  space_id: string;
  change_request_id: string | null;
  parent_id: string | null;
  revision_id: string | null;
  page_id: string | null;
  node_id: string | null;
  table_cell: string | null;
  posted_by: string;
  posted_at: string;
  edited_at: string | null;
  body: string;
  status: Generated<string>;
  resolved_at: string | null;
  resolved_by: string | null;
  page_digest: string | null;
  node_preview: string | null;
}

export interface ContentLinkIndexTable {
  revision_id: string;
  app_url: string;
  indexed_at: string;
  broken: Generated<number>;
}

export interface ContentLinksTable {
  revision_id: string;
  page_id: string;
  position: number;
  href: string;
  relation: string;
  status: string;
  target_kind: string;
  target_id: string | null;
  target_url: string | null;
}

export interface FileBlobsTable {
  sha256: string;
  size: number;
  bytes: Buffer;
  created_at: string;
}

export interface FileContentsTable {
  file_id: string;
  sha256: string;
  content_type: string;
}

export interface GitOperationsTable {
  id: string;
  space_id: string;
  kind: string;
  status: Generated<string>;
  request: string;
  credentials: string | null;
  user_id: string | null;
  commit_oid: string | null;
  revision_id: string | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface IntegrationEventLogsTable {
  seq: Generated<number>;
  event_id: string;
  message: string;
  level: string;
  timestamp: string;
}

export interface IntegrationEventsTable {
  seq: Generated<number>;
  id: string;
  integration_name: string;
  installation_id: string;
  organization_id: string;
  created_at: string;
  payload: string;
  status: string;
}

export interface IntegrationInstallationsTable {
  id: string;
  integration_name: string;
  organization_id: string;
  status: Generated<string>;
  space_selection: Generated<string>;
  site_selection: Generated<string>;
  configuration: Generated<string>;
  external_ids: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface IntegrationsTable {
  name: string;
  organization_id: string;
  version: number;
  runtime: Generated<string>;
  title: string;
  description: string | null;
  summary: string | null;
  icon: string | null;
  preview_images: Generated<string>;
  visibility: Generated<string>;
  target: Generated<string>;
  scopes: Generated<string>;
  categories: Generated<string>;
  blocks: Generated<string>;
  content_sources: Generated<string>;
  external_links: Generated<string>;
  configurations: Generated<string>;
  script: string | null;
  secrets: Generated<string>;
  content_security_policy: string | null;
  verified: Generated<number>;
  dev_tunnel_url: string | null;
  dev_all: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface InviteLinksTable {
  id: string;
  organization_id: string;
  role: string | null;
  created_at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  resource: string;
  order_key: string;
  payload: Generated<string>;
  status: Generated<string>;
  attempts: Generated<number>;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  owner: string | null;
  lease_until: number | null;
}

export interface MembersTable {
  organization_id: string;
  user_id: string;
  role: string | null;
  disabled: Generated<number>;
  sso: Generated<number>;
  joined_at: string;
  last_seen_at: string | null;
  /** The user's display name, kept by the triggers of migration 160_member_display_names (members sort by it). */
  user_display_name: Generated<string>;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface OpenapiSpecVersionsTable {
  id: string;
  spec_id: string;
  number: number;
  created_at: string;
  file_name: string;
  content_type: string;
  text: string;
  document: string;
}

export interface OpenapiSpecsTable {
  id: string;
  organization_id: string;
  slug: string;
  source_url: string | null;
  visibility: Generated<string>;
  processing_state: Generated<string>;
  last_version_id: string | null;
  last_processed_at: string | null;
  last_process_error_code: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrganizationEmailDomainsTable {
  domain: string;
  organization_id: string;
}

export interface OrganizationSpaceCountsTable {
  organization_id: string;
  live_spaces: Generated<number>;
}

export interface OrganizationsTable {
  id: string;
  title: string;
  created_at: string;
  type: string;
  use_case: string | null;
  community_type: string | null;
  hostname: string | null;
  /** NULL: not set; `guest`: explicitly null (new members are guests). */
  default_role: string | null;
  default_content_site: string | null;
  sso: Generated<number>;
  ai: Generated<number>;
  invite_links: Generated<number>;
  plan: Generated<string>;
  custom_hostname: string | null;
  logo: string | null;
  email_domains: Generated<string>;
}

export interface RevisionsTable {
  id: string;
  space_id: string;
  change_request_id: string | null;
  parents: Generated<string>;
  type: string;
  created_at: string;
  content: string;
}

export interface SamlProvidersTable {
  id: string;
  organization_id: string;
  label: string;
  sso_url: string | null;
  entity_id: string | null;
  certificate: string | null;
  default_team_id: string | null;
  /** NULL: not set (members get the organization's default role); `guest`: explicitly null. */
  default_role: string | null;
  created_at: string;
}

export interface SiteSectionGroupsTable {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  position: number;
  created_at: string;
}

export interface SiteSectionsTable {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  path: string;
  description: string | null;
  condition: string | null;
  icon: string | null;
  default_site_space_id: string | null;
  position: number;
  created_at: string;
}

export interface SiteSpacesTable {
  id: string;
  site_id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  condition: string | null;
  position: number;
  created_at: string;
}

export interface SitesTable {
  id: string;
  organization_id: string;
  type: Generated<string>;
  title: string;
  visibility: Generated<string>;
  basename: string | null;
  proxy: string | null;
  agents_context: Generated<string>;
  adaptive_content: Generated<number>;
  adaptive_schema: string;
  adaptive_schema_updated_at: string | null;
  share_key: string;
  default_section_id: string | null;
  default_site_space_id: string | null;
  created_at: string;
}

export interface SpaceCountersTable {
  space_id: string;
  comments: Generated<number>;
  change_requests: Generated<number>;
  change_requests_open: Generated<number>;
  change_requests_draft: Generated<number>;
}

export interface SpacesTable {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string | null;
  visibility: Generated<string>;
  edit_mode: Generated<string>;
  language: string | null;
  default_level: string | null;
  revision_id: string;
  share_key: string;
  git_sync: string | null;
  visitor_auth: string | null;
  position: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  search_revision_id: string | null;
  unwritten_revision_id: string | null;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: Generated<string>;
}

export interface TeamSpacesTable {
  team_id: string;
  space_id: string;
}

export interface TeamsTable {
  id: string;
  organization_id: string;
  title: string;
  created_at: string;
  /** The title in JavaScript's lower case, for case-insensitive filters (migration 240). */
  title_folded: Generated<string>;
}

export interface TokensTable {
  hash: string;
  user_id: string;
  label: string | null;
  created_at: string;
}

export interface TranslationsTable {
  id: string;
  organization_id: string;
  language: string;
  source_space_id: string | null;
  source_language: string | null;
  instructions: string | null;
  status: Generated<string>;
  result_space_id: string | null;
  result_revision_id: string | null;
  runs: Generated<number>;
  total_words: Generated<number>;
  total_pages: Generated<number>;
  total_duration: Generated<number>;
  latest_run_duration: number | null;
  latest_pages: number | null;
  latest_words: number | null;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  display_name: string;
  email: string | null;
  photo_url: string | null;
  created_at: string;
}

export interface Schema {
  change_request_contributors: ChangeRequestContributorsTable;
  change_request_pdfs: ChangeRequestPdfsTable;
  change_requests: ChangeRequestsTable;
  collections: CollectionsTable;
  comment_reactions: CommentReactionsTable;
  comments: CommentsTable;
  content_link_index: ContentLinkIndexTable;
  content_links: ContentLinksTable;
  file_blobs: FileBlobsTable;
  file_contents: FileContentsTable;
  git_operations: GitOperationsTable;
  integration_event_logs: IntegrationEventLogsTable;
  integration_events: IntegrationEventsTable;
  integration_installations: IntegrationInstallationsTable;
  integrations: IntegrationsTable;
  invite_links: InviteLinksTable;
  jobs: JobsTable;
  members: MembersTable;
  meta: MetaTable;
  openapi_spec_versions: OpenapiSpecVersionsTable;
  openapi_specs: OpenapiSpecsTable;
  organization_email_domains: OrganizationEmailDomainsTable;
  organization_space_counts: OrganizationSpaceCountsTable;
  organizations: OrganizationsTable;
  revisions: RevisionsTable;
  saml_providers: SamlProvidersTable;
  site_section_groups: SiteSectionGroupsTable;
  site_sections: SiteSectionsTable;
  site_spaces: SiteSpacesTable;
  sites: SitesTable;
  space_counters: SpaceCountersTable;
  spaces: SpacesTable;
  team_members: TeamMembersTable;
  team_spaces: TeamSpacesTable;
  teams: TeamsTable;
  tokens: TokensTable;
  translations: TranslationsTable;
  users: UsersTable;
}

/**
 * A column's name as the layers above the store spell it, the contract's way: `organization_id` is `organizationId`.
 * The store writes SQL with the columns' own names and hands rows up with these (`camelName` in db.ts, applied to
 * the names of a statement's columns), so no name of a column is written above the store.
 */
export type CamelName<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelName<Tail>>}` : S;

/** An object with its keys named as above the store (`CamelName`): a row as `Db.all` and `Db.first` answer it. */
export type Camelized<T> = { [K in keyof T as K extends string ? CamelName<K> : K]: T[K] };

/** A row of `table` as read, every column, named as above the store. */
export type Selected<T extends keyof Schema> = Camelized<Selectable<Schema[T]>>;

/**
 * A row of `table` as the store hands it up, with some columns narrowed to what the domain knows they hold (an
 * enumeration's values where the column is TEXT): the one source of each row type, so that a column added to a table
 * is in every row type made from it.
 */
export type Row<T extends keyof Schema, Narrowed extends { [C in keyof Selected<T>]?: unknown } = object> = Omit<Selected<T>, keyof Narrowed> &
  Narrowed;
