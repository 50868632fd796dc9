-- storecheck River adapter, Postgres: the task tables, next to River's own (rivermigrate
-- creates those). Applied into the first schema of the search_path; idempotent. The row
-- layout is adapters/postgres's (see its doc.go) plus job_id, the task's River job.
CREATE TABLE IF NOT EXISTS storecheck_river_legacy_tasks (
    task_id    text   PRIMARY KEY,
    job_id     bigint,          -- river_job.id, linked in the transaction that created both
    owner      bytea,           -- the "owner" string's bytes; NULL when unowned
    status     bytea  NOT NULL, -- the "status" string's bytes, 'working' when absent
    created_at bigint,          -- milliseconds, from the store's clock; NULL: no age
    body       text   NOT NULL  -- the whole task, JSON text
);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_owner ON storecheck_river_legacy_tasks (owner);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_status_created ON storecheck_river_legacy_tasks (status, created_at);
CREATE INDEX IF NOT EXISTS storecheck_river_legacy_tasks_job ON storecheck_river_legacy_tasks (job_id);

CREATE TABLE IF NOT EXISTS storecheck_river_modern_tasks (
    task_id    text   PRIMARY KEY,
    job_id     bigint,
    owner      bytea,           -- NULL = no owner
    created_at bigint NOT NULL, -- milliseconds since the Unix epoch
    ttl        bigint,          -- milliseconds; NULL = never expires
    expires_at bigint,          -- created_at + ttl (saturated); NULL = never expires
    version    bigint NOT NULL, -- 1 after create, +1 on every swap (the CAS column)
    body       text   NOT NULL  -- the rest of the record, JSON text
);
CREATE INDEX IF NOT EXISTS storecheck_river_modern_tasks_expires ON storecheck_river_modern_tasks (expires_at)
    WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS storecheck_river_modern_tasks_job ON storecheck_river_modern_tasks (job_id);
