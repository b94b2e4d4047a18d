-- The counters every Space carries (open comments, change requests, open and draft ones), kept by triggers as the
-- rows change instead of counted on every read: counting read every comment of a space, so GET of a space cost more
-- the more it was discussed (a space with 40 000 comments answered at a third of the rate of a new one). Triggers
-- see every write, whatever code (or foreign-key cascade) makes it. A missing row means all counters are 0.
CREATE TABLE space_counters (
  space_id TEXT PRIMARY KEY,
  comments INTEGER NOT NULL DEFAULT 0,
  change_requests INTEGER NOT NULL DEFAULT 0,
  change_requests_open INTEGER NOT NULL DEFAULT 0,
  change_requests_draft INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO space_counters (space_id, comments, change_requests, change_requests_open, change_requests_draft)
SELECT spaces.id,
  (SELECT COUNT(*) FROM comments
    WHERE space_id = spaces.id AND change_request_id IS NULL AND parent_id IS NULL AND status = 'open'),
  (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id),
  (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id AND status = 'open'),
  (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id AND status = 'draft')
FROM spaces;

-- A comment counts when it is an open thread of the space itself (not a reply, not on a change request).
CREATE TRIGGER space_counters_comment_added AFTER INSERT ON comments
WHEN NEW.change_request_id IS NULL AND NEW.parent_id IS NULL AND NEW.status = 'open'
BEGIN
  INSERT INTO space_counters (space_id, comments) VALUES (NEW.space_id, 1)
  ON CONFLICT (space_id) DO UPDATE SET comments = comments + 1;
END;

CREATE TRIGGER space_counters_comment_removed AFTER DELETE ON comments
WHEN OLD.change_request_id IS NULL AND OLD.parent_id IS NULL AND OLD.status = 'open'
BEGIN
  UPDATE space_counters SET comments = comments - 1 WHERE space_id = OLD.space_id;
END;

CREATE TRIGGER space_counters_comment_changed AFTER UPDATE OF space_id, change_request_id, parent_id, status ON comments
BEGIN
  UPDATE space_counters SET comments = comments - 1
  WHERE space_id = OLD.space_id AND OLD.change_request_id IS NULL AND OLD.parent_id IS NULL AND OLD.status = 'open';
  INSERT INTO space_counters (space_id, comments)
  SELECT NEW.space_id, 1 WHERE NEW.change_request_id IS NULL AND NEW.parent_id IS NULL AND NEW.status = 'open'
  ON CONFLICT (space_id) DO UPDATE SET comments = comments + 1;
END;

CREATE TRIGGER space_counters_change_request_added AFTER INSERT ON change_requests
BEGIN
  INSERT INTO space_counters (space_id, change_requests, change_requests_open, change_requests_draft)
  VALUES (NEW.space_id, 1, NEW.status = 'open', NEW.status = 'draft')
  ON CONFLICT (space_id) DO UPDATE SET
    change_requests = change_requests + 1,
    change_requests_open = change_requests_open + (NEW.status = 'open'),
    change_requests_draft = change_requests_draft + (NEW.status = 'draft');
END;

CREATE TRIGGER space_counters_change_request_removed AFTER DELETE ON change_requests
BEGIN
  UPDATE space_counters SET
    change_requests = change_requests - 1,
    change_requests_open = change_requests_open - (OLD.status = 'open'),
    change_requests_draft = change_requests_draft - (OLD.status = 'draft')
  WHERE space_id = OLD.space_id;
END;

CREATE TRIGGER space_counters_change_request_changed AFTER UPDATE OF space_id, status ON change_requests
BEGIN
  UPDATE space_counters SET
    change_requests = change_requests - 1,
    change_requests_open = change_requests_open - (OLD.status = 'open'),
    change_requests_draft = change_requests_draft - (OLD.status = 'draft')
  WHERE space_id = OLD.space_id;
  INSERT INTO space_counters (space_id, change_requests, change_requests_open, change_requests_draft)
  VALUES (NEW.space_id, 1, NEW.status = 'open', NEW.status = 'draft')
  ON CONFLICT (space_id) DO UPDATE SET
    change_requests = change_requests + 1,
    change_requests_open = change_requests_open + (NEW.status = 'open'),
    change_requests_draft = change_requests_draft + (NEW.status = 'draft');
END;

CREATE TRIGGER space_counters_space_removed AFTER DELETE ON spaces
BEGIN
  DELETE FROM space_counters WHERE space_id = OLD.id;
END;
