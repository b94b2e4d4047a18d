-- Pages of lists are read in the order of an index, so a page costs the same however long the list
-- (test/conformance/conformance.test.ts checks the plans of the page queries of a conformance run for a sort; npm run bench's
-- lists part measures pages as lists grow).
--
-- Change requests are listed by their update or creation time, then their number (unique in a space); the indexes
-- ended with the id instead, so SQLite sorted the change requests of equal time on every page.
DROP INDEX change_requests_space;
DROP INDEX change_requests_created;
CREATE INDEX change_requests_updated ON change_requests (space_id, status, updated_at, number);
CREATE INDEX change_requests_created ON change_requests (space_id, status, created_at, number);

-- The spaces of a collection, by their position among its children.
DROP INDEX spaces_parent;
CREATE INDEX spaces_parent ON spaces (parent_id, position, id);

-- Members by last activity (only those who have been active).
CREATE INDEX members_last_seen ON members (organization_id, last_seen_at, user_id) WHERE last_seen_at IS NOT NULL;

-- Deleting a row applies its foreign keys to the rows referring to it (cascade), which SQLite finds by the referring
-- column: without an index leading with it, each such delete read the whole referring table. Purging a space
-- deletes its change requests, each of which read every comment and every PDF of the server; deleting an integration
-- deletes its installations, each of which read every event. test/server/list-costs.test.ts checks every foreign key.
CREATE INDEX comments_change_request ON comments (change_request_id, parent_id, status) WHERE change_request_id IS NOT NULL;
CREATE INDEX change_request_pdfs_change_request ON change_request_pdfs (change_request_id);
CREATE INDEX integration_events_installation ON integration_events (installation_id);
