-- Nothing to change: SQLite's count of changes is its own `total_changes()` on the server's one connection
-- (sqlite/store.ts). PostgreSQL keeps its count in a sequence from this version on (postgres/migrations).
SELECT 1;
