-- A space created empty has a first revision without a row of its own (content/revisions.ts): its id is named here,
-- and it reads as an empty revision of edits made with the space until its row is written (when the link index must
-- refer to it) or the space goes. NULL for every other space, and for spaces made before this migration, whose first
-- revisions all have rows.
ALTER TABLE spaces ADD COLUMN unwritten_revision_id TEXT;
