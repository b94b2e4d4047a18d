-- The count of committed writes (Store.changeCount), for the list pages each instance keeps in memory until the
-- database changes: every write transaction moves it right after its COMMIT, in the same message
-- (postgres/store.ts). A sequence: moving it takes no lock and waits for no disk, so writes of every instance move
-- it side by side without conflicting.
CREATE SEQUENCE store_changes;
