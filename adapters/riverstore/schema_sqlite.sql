-- storecheck River adapter, SQLite: the task tables, next to River's own (rivermigrate
-- creates those). Applied to the database file; idempotent. The row layout is
-- adapters/postgres's (see its doc.go) plus job_id, the task's River job. BLOB columns
-- compare with memcmp: byte-exact, no collation.
CREATE TABLE IF NOT EXISTS storecheck_river_legacy_tasks (
    task_id    TEXT    PRIMARY KEY,
    job_id     INTEGER,          -- river_job.id, linked in the transaction that created both
    owner      BLOB,             -- the "owner" string's bytes; NULL when unowned
    status     BLOB    NOT NULL, -- the "status" string's bytes, 'working' when absent
    created_at INTEGER,          -- milliseconds, from the store's clock; NULL: no age
    body       TEXT    NOT NULL  -- the whole task, JSON text
);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_owner ON storecheck_river_legacy_tasks (owner);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_status_created ON storecheck_river_legacy_tasks (status, created_at);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_job ON storecheck_river_legacy_tasks (job_id);

CREATE TABLE IF NOT EXISTS storecheck_river_modern_tasks (
    task_id    TEXT    PRIMARY KEY,
    job_id     INTEGER,
    owner      BLOB,             -- NULL = no owner
    created_at INTEGER NOT NULL, -- milliseconds since the Unix epoch
    ttl        INTEGER,          -- milliseconds; NULL = never expires
    expires_at INTEGER,          -- created_at + ttl (saturated); NULL = never expires
    version    INTEGER NOT NULL, -- 1 after create, +1 on every swap (the CAS column)
    body       TEXT    NOT NULL  -- the rest of the record, JSON text
);
CREATE INDEX IF NOT EXISTS storecheck_river_modern_tasks_expires ON storecheck_river_modern_tasks (expires_at)
    WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS storecheck_river_modern_tasks_job ON storecheck_river_modern_tasks (job_id);
